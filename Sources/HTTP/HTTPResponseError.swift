/// An error that knows the response it answers with: a handler throws it and the router
/// sends its `response()` (the model is Hummingbird's `HTTPResponseError`).
///
/// ```swift
/// struct Teapot: HTTPResponseError {
///     var status: Int { 418 }
///     func response() -> Response { .text("I am a teapot.", status: status) }
/// }
/// router.add(.GET, "/coffee") { _ in throw Teapot() }
/// ```
/// Any other error a handler throws becomes a logged, generic 500.
public protocol HTTPResponseError: Error, Sendable {
    /// The status the response carries.
    var status: Int { get }
    /// The whole answer: status, headers and body.
    func response() -> Response
}
