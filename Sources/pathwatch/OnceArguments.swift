/// `pathwatch once` read directly from the command line when its arguments take only the plain
/// forms, so that the command most often started by others (Nagios, cron, scripts) skips
/// ArgumentParser: parsing the command tree reflects every subcommand's property wrappers and
/// instantiates their generic types, each a search of the runtime's conformance tables, and
/// reads the arguments twice (once for a completion-script request) — about a third of the
/// instructions of a whole `once`.
///
/// Only what ArgumentParser reads in exactly one way is taken: `once`, then each of `--config`,
/// `--log-level` and `--format` at most once, as `--name value` (a value not starting with `-`)
/// or `--name=value` (not empty), with a log level and a format among their values. Anything
/// else — help, `--version`, a repeated, unknown or misspelt option, a bad value, `--` —
/// returns nil and goes through ArgumentParser, so every message and exit status stays its own.
/// `OnceArgumentsTests` checks both readings agree.
struct OnceArguments {
    var options = PlainCommonOptions()
    var format: Pathwatch.OnceFormat = .json

    /// `arguments` as `CommandLine.arguments` gives them (the program first).
    init?(_ arguments: [String]) {
        guard arguments.count >= 2, arguments[1] == "once" else { return nil }
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
            case "--format":
                guard let format = Pathwatch.OnceFormat(rawValue: value) else { return nil }
                self.format = format
            default: return nil
            }
        }
    }
}
