/// The request methods FieldSync routes. Any other method is answered 501 before routing.
///
/// TRACE is listed although no route takes it, so that it gets 405 with `Allow` like any
/// other standard method a path does not accept (RFC 9110 §15.5.6), not 501.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE
}
