import App
import FieldSyncTools
import Foundation

exit(ToolCommands.commandLine.run(Array(CommandLine.arguments.dropFirst())))
