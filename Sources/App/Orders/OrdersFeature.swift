import Storage
public import SyncAPI
import SyncEngine
public import WebUI

/// Orders: submitted by devices under an idempotency key, decided in the back-office's order
/// desk or by dispatchers' devices, through one `OrderService`.
public struct OrdersFeature: Feature {
    let core: Core
    let orders: OrderService

    init(_ core: Core) {
        self.core = core
        orders = OrderService(store: core.syncStore, changes: core.changes)
    }

    public func routes(on api: APIRoutes) {
        OrdersController(orders: orders).register(on: api)
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addOrderPages(queue: PostgresOrderStore(database: core.database), orders: orders)
    }
}
