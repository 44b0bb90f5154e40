/// The request methods FieldSync routes. Any other method is answered 501 before routing.
///
/// TRACE (RFC 9110) and QUERY (the safe method with a body) are listed although no route
/// takes them, so that they get 405 with `Allow` like any other standard method a path does
/// not accept (RFC 9110 §15.5.6), not 501, which is for methods the server does not know.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, QUERY
}
