import Storage
import SyncEngine
public import WebUI

/// Assignments from the office: the back-office's forms that create, edit and move the work
/// sent to the field, written as pushes of the office user's back-office device.
public struct AssignmentsFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addAssignmentPages(
            board: PostgresAssignmentBoard(database: core.database), desk: AssignmentDesk(pushes: core.pushes), accounts: core.accounts,
            schema: core.schema)
    }
}
