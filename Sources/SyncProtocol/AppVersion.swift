/// A semantic app version (`2.3.0`, `2.3`, `2.3.0-beta.1`), as sent in `X-App-Version`.
///
/// Precedence follows SemVer 2.0: numeric parts, then a pre-release sorts before its
/// release; build metadata (`+…`) is ignored.
///
/// ```swift
/// AppVersion("2.3")! < AppVersion("2.10.0")!  // true
/// AppVersion("two")                          // nil
/// ```
public struct AppVersion: Comparable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int
    /// Dot-separated pre-release identifiers (`["beta", "1"]`), empty for a release.
    public let prerelease: [String]

    public init(major: Int, minor: Int, patch: Int = 0, prerelease: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    /// Parses `MAJOR.MINOR[.PATCH][-PRERELEASE][+BUILD]`; `nil` when malformed.
    public init?(_ text: String) {
        let withoutBuild = text.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = withoutBuild.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let numbers = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(numbers.count), let values = Self.numericParts(numbers) else { return nil }
        let prerelease = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false).map(String.init) : []
        guard prerelease.allSatisfy({ !$0.isEmpty }) else { return nil }
        self.init(major: values[0], minor: values[1], patch: numbers.count == 3 ? values[2] : 0, prerelease: prerelease)
    }

    private static func numericParts(_ parts: [Substring]) -> [Int]? {
        let values = parts.compactMap { part in part.allSatisfy(\.isASCIIDigit) ? Int(part) : nil }
        return values.count == parts.count ? values : nil
    }

    public var description: String {
        let core = "\(major).\(minor).\(patch)"
        return prerelease.isEmpty ? core : core + "-" + prerelease.joined(separator: ".")
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, _): return false
        case (false, true): return true
        case (false, false): return lhs.prerelease.lexicographicallyPrecedes(rhs.prerelease, by: identifierPrecedes)
        }
    }

    /// SemVer identifier order: numeric identifiers numerically and before alphanumeric ones.
    private static func identifierPrecedes(_ a: String, _ b: String) -> Bool {
        switch (Int(a), Int(b)) {
        case (let x?, let y?): x < y
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): a < b
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let version = AppVersion(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a semantic version: \(text)")
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
