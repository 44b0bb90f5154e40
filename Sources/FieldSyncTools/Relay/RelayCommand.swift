import App
import Foundation
import Support

/// `fieldsync relay`: a shaped link in front of a FieldSync server, until interrupted.
struct RelayCommand: Command {
    let path = ["relay"]
    let summary = "relay TCP to a server through a shaped link: bandwidth, latency, random cuts"
    let valueOptions = LinkShape.options.union(["to", "listen"])
    let usage = """
        Usage: fieldsync relay --to PORT [--listen PORT] [--rate 1mbit] [--latency 200] [--cut-every 2000000]

        Accepts connections on 127.0.0.1:--listen (default: a free port, printed) and joins each
        to 127.0.0.1:--to through one link shaped in user space: each direction is paced at its
        rate, shared by all connections, and delayed by half the latency, and, with --cut-every,
        connections are dropped at random in the middle of a transfer. Point a device at the
        relay to see how it does on a slow or unreliable network. Prints what it relayed when stopped (SIGINT/SIGTERM).

        Options:
          --to PORT          the server's port on 127.0.0.1
          --listen PORT      the relay's port (default: any free one)
        \(LinkShape.help)
        """

    func run(_ arguments: CommandLineArguments, environment: Environment) throws -> Int32 {
        guard arguments.value("to") != nil else { throw CommandError("--to PORT is required") }
        let target = try arguments.number("to", 0)
        let listen = try arguments.number("listen", 0, minimum: 0)
        guard target <= 65_535, listen <= 65_535 else { throw CommandError("a port is at most 65535") }
        let shape = try LinkShape(arguments)
        let signal = ShutdownSignal()
        let relay = try TCPRelay(targetPort: target, shape: shape, listenPort: listen)
        relay.start()
        print("Relaying 127.0.0.1:\(relay.port) to 127.0.0.1:\(target): \(shape)")
        fflush(nil)
        signal.wait()
        relay.stop()
        let totals = relay.totals
        print("Relayed \(totals.bytesUp) bytes up and \(totals.bytesDown) down over \(totals.connections) connections; \(totals.cuts) cut.")
        return 0
    }
}
