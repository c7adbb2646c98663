import PathwatchAgent
import PathwatchPluginHost

/// `pathwatch plugin-child …` read directly from the command line, as the agent writes it
/// (ProcessProbeHost, PluginDescriber), so that each plug-in child needs no argument parser:
/// parsing the command tree was about 44% of a child's start-up instructions, paid again at every
/// probe start and restart under process isolation, and the parser's Foundation library about
/// 2.8 MiB of each child's memory.
///
/// Only the forms the agent writes are taken: `--plugin PATH` one or more times, and at most
/// once each `--describe`, `--max-memory BYTES` and `--max-observations COUNT`, every value
/// separate and not starting with `-`. Anything else returns nil and goes to ArgumentParser in
/// the command-line companion. `PluginChildArgumentsTests` checks both readings agree.
package struct PluginChildArguments: Sendable {
    package var plugins: [String] = []
    package var describe = false
    package var maxMemory: UInt64?
    package var maxObservations = PluginChildServing.defaultMaxObservations

    /// `arguments` as `CommandLine.arguments` gives them (the program first).
    package init?(_ arguments: [String]) {
        guard arguments.count >= 2, arguments[1] == "plugin-child" else { return nil }
        var seenMemory = false
        var seenObservations = false
        var index = 2
        while index < arguments.count {
            let name = arguments[index]
            if name == "--describe" {
                guard !describe else { return nil }
                describe = true
                index += 1
                continue
            }
            guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else { return nil }
            let value = arguments[index + 1]
            index += 2
            switch name {
            case "--plugin": plugins.append(value)
            case "--max-memory":
                guard !seenMemory, let bytes = UInt64(value) else { return nil }
                seenMemory = true
                maxMemory = bytes
            case "--max-observations":
                guard !seenObservations, let count = Int(value) else { return nil }
                seenObservations = true
                maxObservations = count
            default: return nil
            }
        }
        guard !plugins.isEmpty else { return nil }
    }

    /// The serving loop's options.
    package var options: PluginChild.Options {
        PluginChild.Options(
            paths: plugins, describeOnly: describe, maxMemoryBytes: maxMemory, maxObservations: maxObservations)
    }
}
