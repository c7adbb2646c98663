/// What every subcommand's common options say, apart from how they were parsed: `CommonOptions`
/// (ArgumentParser's) and `PlainCommonOptions` (`once`'s direct reading) both carry it.
protocol CommonSettings {
    /// `--config`, if given.
    var config: String? { get }
    /// `--log-level`.
    var logLevel: LogLevelOption { get }
}

/// The common options as plain values, read without ArgumentParser (see `OnceArguments`).
struct PlainCommonOptions: CommonSettings {
    var config: String?
    var logLevel: LogLevelOption = .info
}
