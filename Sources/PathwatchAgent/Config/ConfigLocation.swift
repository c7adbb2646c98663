/// Which configuration file a command reads when `--config` is not given (SPEC §1):
/// `$PATHWATCH_CONFIG`, else `./config.json` when it exists, else the installed
/// `/etc/pathwatch/config.json`. A developer in the repository gets its `config.json`; an
/// operator's service, started from `/`, gets the one under /etc.
public enum ConfigLocation {
    public static let installed = "/etc/pathwatch/config.json"
    public static let environmentVariable = "PATHWATCH_CONFIG"

    /// The file to read. `explicit` is `--config`; an empty value counts as unset.
    public static func resolve(
        explicit: String?,
        environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } },
        exists: (String) -> Bool = { access($0, F_OK) == 0 }
    ) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment(environmentVariable), !fromEnvironment.isEmpty { return fromEnvironment }
        if exists("./config.json") { return "./config.json" }
        return installed
    }
}
