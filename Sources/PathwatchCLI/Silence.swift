import ArgumentParser
import PathwatchCommands

extension Pathwatch {
    struct Silence: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "silence",
            abstract:
                "Silence checks in the running agent for a while (kept across restarts): their changes are shown, marked, but not notified.",
            discussion: """
                pathwatch silence 'api/*,disk/root' 2h --comment "moving the API"
                pathwatch silence --list
                pathwatch silence --remove ID
                When a silence ends, each check still not as the notifiers were last told is notified then.
                """)

        @OptionGroup var options: CommonOptions

        @Argument(help: "Comma-separated globs on check ids (api/*,disk/root).")
        var checks: String?

        @Argument(help: "How long: 30m, 2h, 1d (at most 366d).")
        var duration: String?

        @Option(help: "Why, shown by --list.")
        var comment: String?

        @Flag(help: "List the silences in force and the configuration's quiet windows.")
        var list = false

        @Option(help: "Remove the silence with this id.")
        var remove: String?

        func validate() throws {
            let adding = checks != nil || duration != nil || comment != nil
            guard [adding, list, remove != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("give CHECKS and DURATION, or --list, or --remove ID")
            }
            if adding && (checks == nil || duration == nil) { throw ValidationError("give both CHECKS and DURATION") }
        }

        func run() throws {
            let file = options.plain.configFile
            let status =
                if list {
                    SilenceCommand.list(configFile: file)
                } else if let remove {
                    SilenceCommand.remove(configFile: file, id: remove)
                } else {
                    SilenceCommand.add(configFile: file, checks: checks!, duration: duration!, comment: comment)
                }
            throw ExitCode(status)
        }
    }
}
