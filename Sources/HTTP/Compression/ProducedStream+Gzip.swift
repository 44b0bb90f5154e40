public import Foundation

extension ProducedStream {
    /// A produced body sent gzip-compressed (`Content-Encoding: gzip`): each piece `produce`
    /// writes is compressed as it comes, so compressing overlaps sending.
    ///
    /// ```swift
    /// let body = ProducedStream.gzip { write in try writer.write(to: write) }
    /// return Response(headers: ["Content-Encoding": "gzip", "Vary": "Accept-Encoding"], body: .stream(body))
    /// ```
    /// A body that fails part-way ends without the gzip trailer, so the client sees it broken
    /// rather than short.
    public static func gzip(
        capacity: Int = 1 << 20, produce: @escaping @Sendable (_ write: (Data) throws -> Void) throws -> Void
    ) -> ProducedStream {
        ProducedStream(capacity: capacity) { write in
            let deflater = try GzipDeflater()
            try produce { try write(deflater.compress($0)) }
            try write(deflater.finish())
        }
    }
}
