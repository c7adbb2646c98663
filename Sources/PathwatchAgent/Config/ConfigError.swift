import PathwatchJSON
import PathwatchSinkKit

/// A configuration error: which file, where in it (a JSON path, or a line and column for a
/// syntax error), and what was expected. Rendered as
/// `config.json: probes[2].config.targets[0].url: expected an http(s) URL`.
package struct ConfigError: Error, Sendable, CustomStringConvertible {
    package var file: String
    package var location: String
    package var message: String

    package init(file: String, location: String, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    package init(file: String, _ error: JSONPathError) {
        self.init(file: file, location: error.path.description, message: error.message)
    }

    package var description: String { "\(file): \(location): \(message)" }

    /// The error with every substituted secret taken out of what it says. Errors quote the
    /// values they refuse (a plug-in name, a path, a folder list), and any of those may have come
    /// from `${env:…}`: the loader and the probe setup pass each error they let out through here,
    /// so no single message has to remember to.
    package func redacted(by redactor: SecretRedactor) -> ConfigError {
        guard !redactor.isEmpty else { return self }
        return ConfigError(file: file, location: redactor.redact(location), message: redactor.redact(message))
    }
}
