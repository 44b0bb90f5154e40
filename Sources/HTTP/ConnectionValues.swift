internal import CMicroHTTPD
internal import Foundation

/// Reads what libmicrohttpd parsed from a request: header fields, query arguments and
/// the client address. Values are copied out of MHD's connection memory, which is
/// reused once the request is over.
enum ConnectionValues {
    /// The header fields in arrival order, and their total size in bytes (name, value
    /// and the `: ` and CRLF around them).
    static func headers(of connection: OpaquePointer) -> (headers: HTTPHeaders, bytes: Int) {
        var collected = (headers: HTTPHeaders(), bytes: 0)
        withUnsafeMutablePointer(to: &collected) { target in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { target, _, key, keySize, value, valueSize in
                    let collected = target!.assumingMemoryBound(to: (headers: HTTPHeaders, bytes: Int).self)
                    collected.pointee.headers.add(name: ConnectionValues.string(key, keySize), value: ConnectionValues.string(value, valueSize))
                    collected.pointee.bytes += keySize + valueSize + 4
                    return .YES
                }, target)
        }
        return collected
    }

    /// The percent-decoded query arguments; a name without `=` maps to "", and the last
    /// of repeated names wins.
    static func query(of connection: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        withUnsafeMutablePointer(to: &query) { target in
            _ = MHD_get_connection_values_n(
                connection, .GET_ARGUMENT_KIND,
                { target, _, key, keySize, value, valueSize in
                    let query = target!.assumingMemoryBound(to: [String: String].self)
                    query.pointee[ConnectionValues.string(key, keySize)] = ConnectionValues.string(value, valueSize)
                    return .YES
                }, target)
        }
        return query
    }

    /// The client's IP address as text, or "" when MHD does not know it.
    static func remoteAddress(of connection: OpaquePointer) -> String {
        guard let address = CMicroHTTPD_client_address(connection) else { return "" }
        return text(of: address)
    }

    /// An IPv4 or IPv6 socket address as text, or "" for another family.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted: UnsafePointer<CChar>?  // inet_ntop answers NULL on failure
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                withUnsafePointer(to: ipv4.pointee.sin_addr) { inet_ntop(AF_INET, $0, &text, socklen_t(text.count)) }
            }
        case AF_INET6:
            converted = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                withUnsafePointer(to: ipv6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &text, socklen_t(text.count)) }
            }
        default:
            converted = nil
        }
        guard converted != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
