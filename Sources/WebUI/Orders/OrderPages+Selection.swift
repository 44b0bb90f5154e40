import HTTP
import SyncEngine
import SyncProtocol
import Templating

/// "Confirm selected" on the queue: `POST /admin/orders` with one `order` field per ticked
/// order shows the "Are you sure?" page listing them; it posts the same ids again with
/// `confirmed=yes`, which confirms them in one transaction and names the orders someone else
/// decided in the meantime.
extension OrderPages {
    /// The form field carrying each selected order id.
    static let selectionField = "order"

    @Sendable func confirmSelected(_ context: WebContext) throws -> Response {
        let selection: OrderSelection
        do {
            selection = try OrderSelection(context.form.values(Self.selectionField))
        } catch {
            return try renderer.error(error.reason == .tooMany ? 413 : 422, session: context.session, message: error.message)
        }
        guard context.form["confirmed"] == "yes" else { return try askToConfirm(selection, context: context) }
        let decision: OrderBatchDecision
        do {
            decision = try orders.confirm(selection, by: context.session.principal)
        } catch let error as SyncError where error.code == .notFound {
            return try unknown(error.details?["orderIds"]?.arrayValue?.compactMap(\.stringValue) ?? [], context: context)
        }
        return try confirmed(decision, context: context)
    }

    /// The "Are you sure?" page listing the selected orders.
    private func askToConfirm(_ selection: OrderSelection, context: WebContext) throws -> Response {
        let found = Dictionary(try queue.orders(ids: selection.orderIds).map { ($0.order.orderId, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = selection.orderIds.filter { found[$0] == nil }
        guard missing.isEmpty else { return try unknown(missing, context: context) }
        let chosen = selection.orderIds.compactMap { found[$0] }
        let count = Formatting.counted(chosen.count, "order")
        let confirmation = Confirmation(
            title: "Confirm \(count)?", question: "These \(count) will be confirmed:",
            consequences: [
                "Each order becomes CONFIRMED, as if confirmed on its own page.",
                "The devices that sent them receive the change on their next sync.",
                "An order someone else decides before you confirm is left as it is, and named on the next page.",
            ],
            action: Self.path, confirmLabel: "Confirm \(count)", cancelPath: Self.path, hidden: ["confirmed": "yes"],
            hiddenLists: [Self.selectionField: selection.orderIds],
            items: chosen.map { ($0.order.orderId, detail(of: $0)) })
        return try renderer.render(confirmation.page(area: .orders, session: context.session))
    }

    /// "customer cust-9", and for an order already decided, by whom.
    private func detail(of queued: QueuedOrder) -> String {
        let customer = "customer \(queued.order.customerId)"
        guard queued.order.status != .submitted else { return customer }
        return "\(customer) — already \(Self.decided(queued)); it will be left as it is"
    }

    /// "confirmed by maria", "rejected" when the account is gone.
    private static func decided(_ queued: QueuedOrder) -> String {
        statusName(queued.order.status).lowercased() + (queued.decidedBy.map { " by \($0)" } ?? "")
    }

    /// The 404 page naming the selected ids that are no order.
    private func unknown(_ ids: [String], context: WebContext) throws -> Response {
        try renderer.error(
            404, session: context.session,
            message: "There is no order \(OrderSelection.listed(ids)), so nothing was changed. Go back to the queue and select again.")
    }

    /// What the confirmation did: the confirmed orders, and those decided by someone else.
    private func confirmed(_ decision: OrderBatchDecision, context: WebContext) throws -> Response {
        let decided = Dictionary(
            try (decision.alreadyDecided.isEmpty ? [] : queue.orders(ids: decision.alreadyDecided)).map { ($0.order.orderId, $0) },
            uniquingKeysWith: { first, _ in first })
        let others = decision.alreadyDecided.compactMap { decided[$0] }
        let summary =
            ["\(Formatting.count(decision.confirmed.count)) confirmed"]
            + others.map { "\($0.order.orderId) was already \(Self.decided($0))" }
        let content: [String: TemplateValue] = [
            "heading": .string(Formatting.counted(decision.confirmed.count, "order") + " confirmed"),
            "confirmed": .array(
                decision.confirmed.map {
                    ["orderId": .string($0.orderId), "customerId": .string($0.customerId), "path": .string(Self.path(of: $0.orderId))]
                }),
            "hasConfirmed": .bool(!decision.confirmed.isEmpty),
            "others": .array(
                others.map {
                    [
                        "orderId": .string($0.order.orderId), "customerId": .string($0.order.customerId),
                        "path": .string(Self.path(of: $0.order.orderId)),
                        "status": .string(Self.statusName($0.order.status)), "decidedBy": $0.decidedBy.map(TemplateValue.string) ?? .null,
                    ]
                }),
            "hasOthers": .bool(!others.isEmpty),
        ]
        var page = Page("pages/orders-confirmed", title: "Orders confirmed", area: .orders, session: context.session, content: content)
        page.notice = Notice(kind: others.isEmpty ? .success : .info, text: summary.joined(separator: "; ") + ".")
        return try renderer.render(page)
    }
}
