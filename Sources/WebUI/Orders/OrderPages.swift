import Foundation
import HTTP
public import SyncEngine
import SyncProtocol
import Templating

/// The order desk: `GET /admin/orders` (submitted orders, oldest first; other statuses by
/// filter), one order's page, and its confirmation or rejection through the same
/// `OrderService` as the device API, so each decision is one applied change that devices
/// pull and one `order.status_changed` event.
///
/// Confirming one order is one click (one form post). Rejecting posts twice: first to the
/// "Are you sure?" page, which posts again with `confirmed=yes`; so does confirming a
/// selection of orders from the queue (`OrderPages+Selection.swift`).
struct OrderPages {
    let queue: any OrderStore
    let orders: OrderService
    let renderer: PageRenderer
    let configuration: WebConfiguration

    static let path = Area.orders.path

    static func path(of orderId: String) -> String {
        "\(path)/\(PathSegment.encode(orderId))"
    }

    func register(on routes: BackOfficePages) {
        routes.add(.GET, Self.path, area: .orders, handler: list)
        // The selection posts to the queue's own address: any path below it could be an order id.
        routes.add(.POST, Self.path, area: .orders, handler: confirmSelected)
        routes.add(.GET, "\(Self.path)/{id}", area: .orders, handler: show)
        routes.add(.POST, "\(Self.path)/{id}/confirm", area: .orders, handler: confirm)
        routes.add(.POST, "\(Self.path)/{id}/reject", area: .orders, handler: reject)
    }

    /// Orders per page of the list.
    static let pageSize = 100

    @Sendable func list(_ context: WebContext) throws -> Response {
        let status = context.request.query["status"].flatMap(OrderStatus.init(rawValue:)) ?? .submitted
        let pager = try Pager(context.request.query)
        let page = try queue.orders(status: status, after: pager.cursor, limit: Self.pageSize)
        let counts = try queue.counts()
        let selectAll = status == .submitted && context.request.query["select"] == "all"
        let afterToken = context.request.query[Pager.parameter].map { [(Pager.parameter, $0)] } ?? []
        let content: [String: TemplateValue] = [
            "orders": .array(page.rows.map { row($0, selected: selectAll) }), "hasOrders": .bool(!page.rows.isEmpty),
            "selectAllPath": .string(Self.link(Self.path, afterToken + [("select", "all")])),
            "selectNonePath": .string(Self.link(Self.path, afterToken)), "allSelected": .bool(selectAll),
            "selectionLimit": .string(String(OrderSelection.limit)),
            "heading": .string(Formatting.counted(counts[status] ?? 0, "\(Self.statusName(status).lowercased()) order")),
            "submitted": .bool(status == .submitted),
            "statuses": .array(
                [OrderStatus.submitted, .confirmed, .rejected].map { option in
                    [
                        "value": .string(option.rawValue), "label": .string(Self.statusName(option)),
                        "count": .string(Formatting.count(counts[option] ?? 0)), "selected": .bool(option == status),
                    ]
                }),
            "pager": pager.navigation(
                path: Self.path, filters: [("status", status.rawValue)], count: page.rows.count, total: counts[status] ?? 0, next: page.next),
        ]
        var rendered = Page("pages/orders", title: "Orders", area: .orders, session: context.session, content: content)
        rendered.notice = try queueNotice(context)
        return try renderer.render(rendered)
    }

    @Sendable func show(_ context: WebContext) throws -> Response {
        let order = try target(context)
        let notice: Notice? =
            switch context.request.query["notice"] {
            case "confirmed": Notice(kind: .success, text: "Order confirmed. The device that sent it receives the change on its next sync.")
            case "rejected": Notice(kind: .success, text: "Order rejected. The device that sent it receives the reason on its next sync.")
            default: nil
            }
        return try page(order, context: context, notice: notice)
    }

    /// One click: confirming is not destructive, and the queue and the order page say what it
    /// does. From the queue (`from=queue`) it leads back to the queue, for the next order.
    @Sendable func confirm(_ context: WebContext) throws -> Response {
        let order = try target(context)
        let response = try decide(order, context: context, notice: "confirmed") { try orders.confirm(order.order.orderId, by: $0) }
        guard response.status == 303, context.form["from"] == "queue" else { return response }
        return .redirect(to: Self.link(Self.path, [(Self.confirmedParameter, order.order.orderId)]))
    }

    /// The queue's query parameter naming the order just confirmed from it.
    static let confirmedParameter = "confirmed"

    /// The notice of the queue after a one-click confirmation: only for an order that is confirmed.
    private func queueNotice(_ context: WebContext) throws -> Notice? {
        guard let orderId = context.request.query[Self.confirmedParameter], let order = try queue.order(id: orderId),
            order.order.status == .confirmed
        else { return nil }
        return Notice(kind: .success, text: "Order \(orderId) confirmed. The device that sent it receives the change on its next sync.")
    }

    @Sendable func reject(_ context: WebContext) throws -> Response {
        let order = try target(context)
        let reason = context.form.trimmed("reason")
        guard !reason.isEmpty else {
            return try page(
                order, context: context, notice: Notice(kind: .error, text: "Give a reason for the rejection; nothing was changed."), status: 422)
        }
        guard context.form["confirmed"] == "yes" else {
            return try ask(
                order, context: context, verb: "Reject", action: "reject",
                consequences: [
                    "The order becomes REJECTED with the reason “\(reason)”.", "The device that sent it receives the reason on its next sync.",
                ],
                hidden: ["reason": reason])
        }
        return try decide(order, context: context, notice: "rejected") { try orders.reject(order.order.orderId, reason: reason, by: $0) }
    }

    // MARK: - Helpers

    static func statusName(_ status: OrderStatus) -> String {
        switch status {
        case .submitted: "Submitted"
        case .confirmed: "Confirmed"
        case .rejected: "Rejected"
        }
    }

    /// The "Are you sure?" page, which posts the same form again with `confirmed=yes`.
    private func ask(
        _ order: QueuedOrder, context: WebContext, verb: String, action: String, consequences: [String], hidden: [String: String]
    ) throws -> Response {
        let orderId = order.order.orderId
        let confirmation = Confirmation(
            title: "\(verb) order \(orderId)?", question: "Order \(orderId) for customer \(order.order.customerId) is waiting for a decision.",
            consequences: consequences, action: Self.path(of: orderId) + "/" + action, confirmLabel: "\(verb) order",
            cancelPath: Self.path(of: orderId), hidden: hidden.merging(["confirmed": "yes"]) { $1 })
        return try renderer.render(confirmation.page(area: .orders, session: context.session))
    }

    /// Applies a decision as the signed-in user; a refusal (decided meanwhile) shows on the order's page.
    private func decide(
        _ order: QueuedOrder, context: WebContext, notice: String, _ change: (Principal) throws -> Order
    ) throws -> Response {
        do {
            _ = try change(context.session.principal)
        } catch let error as SyncError where error.code == .orderNotSubmitted {
            let text = "Someone decided this order a moment ago; its current status is shown below and nothing else was changed."
            return try page(try target(context), context: context, notice: Notice(kind: .error, text: text), status: 409)
        }
        return .redirect(to: Self.path(of: order.order.orderId) + "?notice=\(notice)")
    }

    /// The order the path names.
    /// - Throws: 404 when there is none.
    func target(_ context: WebContext) throws -> QueuedOrder {
        guard let order = try queue.order(id: try context.request.parameter("id")) else { throw PageError.notFound }
        return order
    }

    func created(_ order: Order) -> String {
        Formatting.dateTime(rfc3339: order.createdAt, in: configuration.timeZone)
    }

    private static func link(_ path: String, _ pairs: [(String, String)]) -> String {
        pairs.isEmpty ? path : path + "?" + SafeRedirect.encodeQuery(pairs)
    }

    private static func lines(_ order: Order) -> String {
        order.lines.map { "\($0.qty) × \($0.sku)" }.joined(separator: ", ")
    }

    private func row(_ queued: QueuedOrder, selected: Bool) -> TemplateValue {
        let order = queued.order
        return [
            "path": .string(Self.path(of: order.orderId)), "orderId": .string(order.orderId), "customerId": .string(order.customerId),
            "lines": .string(Self.lines(order)), "submittedBy": queued.submittedBy.map(TemplateValue.string) ?? .null,
            "created": .string(created(order)), "status": .string(Self.statusName(order.status)),
            "confirmPath": .string(Self.path(of: order.orderId) + "/confirm"), "selected": .bool(selected),
        ]
    }

    private func page(_ queued: QueuedOrder, context: WebContext, notice: Notice? = nil, status: Int = 200) throws -> Response {
        let order = queued.order
        let content: [String: TemplateValue] = [
            "orderId": .string(order.orderId), "customerId": .string(order.customerId),
            "lines": .array(order.lines.map { ["sku": .string($0.sku), "qty": .string(String($0.qty))] }),
            "note": order.note.map(TemplateValue.string) ?? .null, "submittedBy": queued.submittedBy.map(TemplateValue.string) ?? .null,
            "created": .string(created(order)), "status": .string(Self.statusName(order.status)), "serverSeq": .string(String(order.serverSeq)),
            "decidedBy": queued.decidedBy.map(TemplateValue.string) ?? .null,
            "rejectionReason": order.rejectionReason.map(TemplateValue.string) ?? .null, "open": .bool(order.status == .submitted),
            "confirmPath": .string(Self.path(of: order.orderId) + "/confirm"), "rejectPath": .string(Self.path(of: order.orderId) + "/reject"),
            "reason": .string(context.form.trimmed("reason")),
        ]
        var page = Page("pages/order", title: "Order \(order.orderId)", area: .orders, session: context.session, content: content, status: status)
        page.notice = notice
        return try renderer.render(page)
    }
}

extension Area {
    /// `/admin/orders`: the order desk.
    public static let orders = Area(path: "/admin/orders", title: "Orders", access: [.admin: .manage, .dispatcher: .manage])
}

extension BackOfficePages {
    /// Adds the order desk: the queue, one order, its confirmation and rejection.
    public func addOrderPages(queue: any OrderStore, orders: OrderService) {
        OrderPages(queue: queue, orders: orders, renderer: renderer, configuration: configuration).register(on: self)
    }
}
