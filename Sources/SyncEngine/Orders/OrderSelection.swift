public import SyncProtocol

/// The orders a dispatcher picked to decide at once: at least one, at most ``limit``, each a
/// well-formed order id, none twice.
///
/// ```swift
/// let selection = try OrderSelection(form.values("order"))   // throws OrderSelection.Refusal
/// let batch = try orders.confirm(selection, by: dispatcher)
/// ```
public struct OrderSelection: Sendable, Equatable {
    /// The most orders one request may decide: a morning's queue fits, and the transaction that
    /// locks them stays short.
    public static let limit = 200

    /// The chosen ids, in the order they were given.
    public let orderIds: [String]

    /// - Throws: ``Refusal`` when the list is empty, longer than ``limit``, or holds a malformed
    ///   or repeated id.
    public init(_ orderIds: [String]) throws(Refusal) {
        guard !orderIds.isEmpty else { throw Refusal(.empty, "No order was selected, so nothing was changed. Tick the orders to confirm.") }
        guard orderIds.count <= Self.limit else {
            throw Refusal(
                .tooMany,
                "\(orderIds.count) orders were selected; at most \(Self.limit) can be confirmed at once, so nothing was changed. Select fewer.")
        }
        let malformed = orderIds.filter { !DeviceIdentifier.isValid($0) }
        guard malformed.isEmpty else {
            throw Refusal(.malformed, "These are not order ids, so nothing was changed: \(Self.listed(malformed)).")
        }
        var seen = Set<String>()
        let repeated = orderIds.filter { !seen.insert($0).inserted }
        guard repeated.isEmpty else {
            throw Refusal(
                .repeated, "These orders were selected more than once, so nothing was changed: \(Self.listed(Array(Set(repeated)).sorted())).")
        }
        self.orderIds = orderIds
    }

    /// Up to five ids, each cut to 40 characters, then how many more: a refusal stays readable
    /// whatever was sent.
    public static func listed(_ ids: [String]) -> String {
        let shown = ids.prefix(5).map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }.map { $0.isEmpty ? "(empty)" : $0 }
        return shown.joined(separator: ", ") + (ids.count > 5 ? " and \(ids.count - 5) more" : "")
    }

    /// Why a selection cannot be decided; the message says so in words and that nothing changed.
    public struct Refusal: Error, Sendable, Equatable {
        public enum Reason: Sendable, Equatable {
            case empty, tooMany, malformed, repeated
        }

        public let reason: Reason
        public let message: String

        init(_ reason: Reason, _ message: String) {
            self.reason = reason
            self.message = message
        }
    }
}

/// What confirming a selection did: the orders it confirmed, and those someone had already
/// decided (confirmed or rejected) before the request, which it left as they were.
public struct OrderBatchDecision: Sendable {
    public let confirmed: [Order]
    /// Ids of the selected orders that were no longer `SUBMITTED`, in selection order.
    public let alreadyDecided: [String]
}
