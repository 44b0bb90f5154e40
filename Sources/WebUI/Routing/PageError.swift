/// Why a back-office page cannot be shown: `BackOfficePages` answers with the HTML error page of
/// its status.
enum PageError: Error {
    /// Nothing at this address (no such order, user, conflict…).
    case notFound
    /// The viewer may open the area but not this item (a supervisor and another team's device).
    case forbidden

    var status: Int {
        switch self {
        case .notFound: 404
        case .forbidden: 403
        }
    }
}
