import Glibc

/// Which configuration file a command reads when `--config` is not given (contract §1):
/// `$PATHWATCH_CONFIG`, else the installed `/etc/pathwatch/config.json`. The current folder is
/// read only when asked (`--config config.json`, as `make run` does): a `config.json` that
/// belongs to another program, in the folder an operator or NRPE happens to run `pathwatch
/// status` or `once` from, is never taken for the agent's.
package enum ConfigLocation {
    package static let installed = "/etc/pathwatch/config.json"
    package static let environmentVariable = "PATHWATCH_CONFIG"

    /// The file to read. `explicit` is `--config`; an empty value counts as unset.
    package static func resolve(
        explicit: String?,
        environment: (String) -> String? = { name in getenv(name).map { String(cString: $0) } }
    ) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment(environmentVariable), !fromEnvironment.isEmpty { return fromEnvironment }
        return installed
    }
}
