/// What every command's common options say, apart from how they were parsed: the command-line
/// companion's `CommonOptions` (ArgumentParser's) and `PlainCommonOptions` (the direct reading of
/// `run` and `once`) both carry it.
package protocol CommonSettings {
    /// `--config`, if given.
    var config: String? { get }
    /// `--log-level`.
    var logLevel: LogLevelOption { get }
}

/// The common options as plain values, read without ArgumentParser (see `PlainArguments`).
package struct PlainCommonOptions: CommonSettings, Sendable {
    package var config: String?
    package var logLevel: LogLevelOption = .info

    package init(config: String? = nil, logLevel: LogLevelOption = .info) {
        self.config = config
        self.logLevel = logLevel
    }
}
