public import App

/// The commands of `fieldsync-tools`: benchmarks, the fleet simulator and the relay, kept out
/// of the `fieldsync` server binary (which runs them for `fieldsync bench …`, `fieldsync
/// simulate` and `fieldsync relay`). A new tool is one more line here.
public enum ToolCommands {
    public static let all: [any Command] = [
        BenchHTTPCommand(), BenchSyncCommand(), BenchUploadCommand(), BenchEventsCommand(), BenchMigrateCommand(), BenchWebCommand(),
        BenchFieldDayCommand(),
        SimulateCommand(), RelayCommand(),
    ]

    /// The command line of `fieldsync-tools`.
    public static let commandLine = CommandLineTool(
        program: "fieldsync-tools",
        title: "FieldSync tools — benchmarks, fleet simulator and relay, run apart from the fieldsync server (also as fieldsync bench …).",
        commands: all + [DemoFleetCommand()])
}
