/// What a request's `Accept-Encoding` fields allow (RFC 9110 §12.5.3).
///
/// ```swift
/// AcceptEncoding(request.headers).allowsGzip   // "gzip", "gzip;q=0.5", "*" -> true; "gzip;q=0", none -> false
/// ```
/// A member that does not parse (a bad weight, stray characters) is ignored, so a hostile
/// value can only ever lead to the uncompressed answer.
public struct AcceptEncoding: Sendable, Equatable {
    /// Whether a gzip body may be sent: `gzip` (or its alias `x-gzip`) with a non-zero weight,
    /// or, when neither is named, `*` with a non-zero weight.
    public let allowsGzip: Bool

    public init(_ headers: HTTPHeaders) {
        var gzip: Double?
        var any: Double?
        for field in headers.values("Accept-Encoding") {
            for member in field.split(separator: ",") {
                guard let (coding, weight) = Self.parse(member) else { continue }
                switch coding {
                case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
                case "*": any = max(any ?? 0, weight)
                default: break
                }
            }
        }
        allowsGzip = (gzip ?? any ?? 0) > 0
    }

    /// `coding` lower-cased and its weight (1 when absent); nil for a malformed member.
    static func parse(_ member: Substring) -> (String, Double)? {
        let parts = member.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard let coding = parts.first, !coding.isEmpty, coding.utf8.count <= 64, coding.allSatisfy(Self.isTokenCharacter)
        else { return nil }
        var weight = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q", let value = qvalue(pair[1].trimmingSpaces) else { return nil }
            weight = value
        }
        return (coding.lowercased(), weight)
    }

    /// `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`
    static func qvalue(_ text: Substring) -> Double? {
        let bytes = Array(text.utf8)
        guard (1...5).contains(bytes.count), bytes[0] == UInt8(ascii: "0") || bytes[0] == UInt8(ascii: "1") else { return nil }
        if bytes.count > 1 {
            guard bytes[1] == UInt8(ascii: "."), bytes.dropFirst(2).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
        }
        guard let value = Double(text), value <= 1 else { return nil }
        return value
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"\"(),/:;<=>?@[\\]{}".utf8.contains(ascii)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
