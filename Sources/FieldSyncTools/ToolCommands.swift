public import App

/// The commands of `fieldsync-tools`: benchmarks, kept out of the `fieldsync` server binary
/// (which runs them for `fieldsync bench …`). A new tool is one more line here.
public enum ToolCommands {
    public static let all: [any Command] = [
        BenchHTTPCommand(), BenchSyncCommand(), BenchUploadCommand(), BenchEventsCommand(), BenchWebCommand(),
    ]

    /// The command line of `fieldsync-tools`.
    public static let commandLine = CommandLineTool(
        program: "fieldsync-tools", title: "FieldSync tools — benchmarks, run apart from the fieldsync server (also as fieldsync bench …).",
        commands: all)
}
