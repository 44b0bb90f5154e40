internal import Foundation

/// The client's address behind reverse proxies: `X-Forwarded-For` is believed only when the
/// connection comes from a configured trusted proxy, and then only as far back as the
/// chain of trusted proxies reaches (anyone can put anything at the front of the header).
enum ClientAddress {
    /// - Parameters:
    ///   - peer: the address of the connection's other end.
    ///   - forwardedFor: every `X-Forwarded-For` field, in order.
    ///   - trustedProxies: addresses whose `X-Forwarded-For` is believed.
    /// - Returns: the right-most address in the chain that is not a trusted proxy; the nearest
    ///   trusted hop when the chain holds something that is not an IP address.
    static func resolve(peer: String, forwardedFor: [String], trustedProxies: Set<String>) -> String {
        guard trustedProxies.contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            guard isIPAddress(hop) else { return client }
            client = hop
            if !trustedProxies.contains(hop) { return hop }
        }
        return client
    }

    static func isIPAddress(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
