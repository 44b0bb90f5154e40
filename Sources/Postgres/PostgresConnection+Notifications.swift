import CLibPQ
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `NOTIFY` received on a connection that is listening.
struct PostgresNotification: Sendable, Equatable {
    var channel: String
    var payload: String
}

extension PostgresConnection {
    /// Subscribes this session to `channels`; names are quoted, so any text is a valid channel.
    func listen(to channels: [String]) throws {
        let statements = channels.map { "LISTEN \(Self.quotedIdentifier($0))" }
        try executeScript(statements.joined(separator: "; "))
    }

    /// Waits up to `timeoutMilliseconds` for the socket to become readable, then returns every
    /// notification that has arrived (possibly none).
    /// - Throws: `PostgresError(.connectionFailed)` when the session is lost.
    func waitForNotifications(timeoutMilliseconds: Int32) throws -> [PostgresNotification] {
        let connection = try openHandle()
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw PostgresError(connection: connection, sql: nil) }
        // poll() rather than a blocking read: the listener thread must wake up regularly to see stop().
        if poll(&descriptor, 1, timeoutMilliseconds) < 0, errno != EINTR {
            throw PostgresError(code: .connectionFailed, message: "poll() on the listening connection failed (errno \(errno))")
        }
        guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else {
            throw PostgresError(code: .connectionFailed, message: PostgresError(connection: connection, sql: nil).message)
        }
        var received: [PostgresNotification] = []
        while let notification = PQnotifies(connection) {
            // > PQnotifies: after processing a PGnotify object, be sure to free it with PQfreemem.
            defer { PQfreemem(notification) }
            received.append(
                PostgresNotification(
                    channel: String(cString: notification.pointee.relname), payload: String(cString: notification.pointee.extra)))
        }
        return received
    }

    /// `name` as a double-quoted SQL identifier, with embedded quotes doubled.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
