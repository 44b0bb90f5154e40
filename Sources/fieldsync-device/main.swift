import Foundation

// `fieldsync-device`: one FieldSync device on the command line, for test harnesses and
// simulators. Its state lives in the SQLite file given with --database, so consecutive
// runs (or a run killed half-way and started again) continue the same device.
let status = await DeviceCommand.main(Array(CommandLine.arguments.dropFirst()))
exit(status)
