/// `pathwatch run`, `once` and `check-config` read directly from the command line when their
/// arguments take only the plain forms, so the agent's service start, and the command most often
/// started by others (Nagios, cron, scripts), need no argument parser: the executable then links
/// neither swift-argument-parser nor the Foundation library it brings (about 2.8 MiB of every
/// agent process's memory, docs/design.md); and `check-config` runs where every sink kind can be
/// checked as the agent will run it (the http sink's certificates are read by its server's
/// module, which the companion does not link). Parsing the command tree also reflects every
/// subcommand's property wrappers, each a search of the runtime's conformance tables.
///
/// Only what ArgumentParser reads in exactly one way is taken: the subcommand, then each of
/// `--config`, `--log-level` and (`once` only) `--format` at most once, as `--name value` (a value
/// not starting with `-`) or `--name=value` (not empty), with a log level and a format among
/// their values. Anything else — help, `--version`, a repeated, unknown or misspelt option, a bad
/// value, `--` — returns nil and goes to the command-line companion, so every message and exit
/// status stays ArgumentParser's. `PlainArgumentsTests` checks both readings agree.
package struct PlainArguments: Sendable {
    package enum Command: String, Sendable {
        case run, once
        case checkConfig = "check-config"
    }

    package var command: Command
    package var options = PlainCommonOptions()
    package var format: OnceFormat = .json

    /// `arguments` as `CommandLine.arguments` gives them (the program first).
    package init?(_ arguments: [String]) {
        guard arguments.count >= 2, let command = Command(rawValue: arguments[1]) else { return nil }
        self.command = command
        var seen: [Substring] = []  // an array: a set's storage would cost a conformance search
        var index = 2
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { return nil }
            let name: Substring
            let value: String
            if let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                value = String(argument[argument.index(after: equals)...])
                guard !value.isEmpty else { return nil }
                index += 1
            } else {
                guard index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") else { return nil }
                name = Substring(argument)
                value = arguments[index + 1]
                index += 2
            }
            guard !seen.contains(name) else { return nil }
            seen.append(name)
            switch name {
            case "--config": options.config = value
            case "--log-level":
                guard let level = LogLevelOption(rawValue: value) else { return nil }
                options.logLevel = level
            case "--format" where command == .once:
                guard let format = OnceFormat(rawValue: value) else { return nil }
                self.format = format
            default: return nil
            }
        }
    }
}

extension PlainArguments {
    /// `command` with these options in the plain form (the program not included), as the
    /// command-line companion hands `run`, `once` and `check-config` back to the agent's executable.
    package init(command: Command, options: PlainCommonOptions, format: OnceFormat = .json) {
        self.command = command
        self.options = options
        self.format = format
    }

    /// The arguments that read back as these. A value starting with `-` goes in `--name=value`
    /// (it would otherwise read as an option), an empty one as `--name ""`.
    package var arguments: [String] {
        var out = [command.rawValue]
        if let config = options.config { out += config.hasPrefix("-") ? ["--config=\(config)"] : ["--config", config] }
        out.append("--log-level=\(options.logLevel.rawValue)")
        if command == .once { out.append("--format=\(format.rawValue)") }
        return out
    }
}
