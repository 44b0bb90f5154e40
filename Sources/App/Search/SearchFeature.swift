import Storage
public import WebUI

/// The back-office search: the header's search box and its results page.
public struct SearchFeature: Feature {
    let core: Core

    init(_ core: Core) {
        self.core = core
    }

    public func pages(on backOffice: BackOfficePages) {
        backOffice.addSearchPage(store: PostgresSearchStore(database: core.database))
    }
}
