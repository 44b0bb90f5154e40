import Foundation
public import SyncProtocol

/// The back-office's order pages: what they read from the database. Changes go through
/// `OrderService`, never through this store.
public protocol OrderStore: Sendable {
    /// One page of the orders in `status`, oldest first: the `limit` orders after `after`.
    /// - Throws: `PageCursor.Invalid` when `after` is not a cursor of this list.
    func orders(status: OrderStatus, after: PageCursor?, limit: Int) throws -> PageOf<QueuedOrder>

    /// How many orders are in each status.
    func counts() throws -> [OrderStatus: Int]

    /// One order; nil when there is none with this id.
    func order(id: String) throws -> QueuedOrder?

    /// The orders among `ids`, in no particular order; ids that name no order are left out.
    func orders(ids: [String]) throws -> [QueuedOrder]
}

/// An order with the names the back-office shows next to it.
public struct QueuedOrder: Sendable {
    public var order: Order
    /// The user name of whoever submitted it (the record's `user:` scope key); nil when the
    /// account no longer exists.
    public var submittedBy: String?
    /// For a decided order, the user name of whoever confirmed or rejected it; nil while
    /// `SUBMITTED` or when the account no longer exists.
    public var decidedBy: String?

    public init(order: Order, submittedBy: String?, decidedBy: String? = nil) {
        self.order = order
        self.submittedBy = submittedBy
        self.decidedBy = decidedBy
    }
}
