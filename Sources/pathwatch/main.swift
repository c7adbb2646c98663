import PathwatchBase
import PathwatchCommands
import PathwatchHTTPSink
import PathwatchSinkKit
import PathwatchSinks

// Before anything else: no process of this user (a plug-in child among them) may ptrace this
// one or reach its memory, descriptors or /proc files (ProcessHardening, docs/isolation.md).
ProcessHardening.makeUndumpable()

// `pathwatch`: the agent's executable. `run`, `once`, `check-config`, `reload` and a plug-in
// child, in the plain forms the service unit, monitoring systems and the agent itself write, are
// read here directly; every other command line goes to the command-line companion (see
// CommandLineCompanion), which links no sink's server.
let arguments = CommandLine.arguments
if let plain = PlainArguments(arguments) {
    // Every shipped kind, the http sink's with its server: what the agent runs and checks.
    let sinks = SinkRegistry.standard.replacing(.httpServer)
    switch plain.command {
    case .run: RunCommand.executeOnAgentThreads(options: plain.options, sinks: sinks)
    case .once: OnceCommand.execute(options: plain.options, format: plain.format, sinks: sinks)
    case .checkConfig: CheckConfigCommand.execute(options: plain.options, sinks: sinks)
    }
}
if let child = PluginChildArguments(arguments) { PluginChildServing.serveOnThisThread(child.options) }
if let reload = ReloadArguments(arguments) {
    exitProcess(ReloadCommand.execute(pid: reload.pid, timeoutSeconds: reload.timeout))
}
CommandLineCompanion.replaceProcess(arguments: arguments)
