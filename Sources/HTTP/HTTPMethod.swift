/// The request methods FieldSync routes. Any other method is answered 501 before routing.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS
}
