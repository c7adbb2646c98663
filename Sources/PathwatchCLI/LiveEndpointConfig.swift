import PathwatchAgent
import PathwatchBase
import PathwatchHTTPSinkSettings
import PathwatchJSON
import PathwatchSinkKit

/// What `pathwatch status` needs of the configuration: the first http sink's address and token.
///
/// Only that sink is decoded and only its secrets are substituted. An operator's shell lacks the
/// secrets the service's environment carries (a webhook header's `${env:…}`, say); loading the
/// whole configuration there would fail on a value `status` never uses (contract §9).
package enum LiveEndpointConfig {
    /// The first http sink of the main file, then of each conf.d fragment in name order (the
    /// order the agent itself lists them in), or nil when there is none.
    package static func firstHTTPSink(file: String) throws(ConfigError) -> HTTPSinkSettings? {
        let text: String
        do {
            text = try BoundedFile.readText(file, limit: ConfigLoader.maxConfigBytes)
        } catch {
            throw ConfigError(file: file, location: "(file)", message: "cannot read the configuration: \(error)")
        }
        let sources = [ConfigFragment(file: file, text: text)] + (try ConfigFragment.read(besides: file))
        for source in sources {
            if let settings = try firstHTTPSink(in: source, baseDirectory: directoryName(file)) { return settings }
        }
        return nil
    }

    /// Only the http kind: the other sinks' entries are never decoded.
    private static let httpOnly = SinkRegistry([.http], whenNoneConfigured: [])

    private static func firstHTTPSink(in source: ConfigFragment, baseDirectory: String) throws(ConfigError)
        -> HTTPSinkSettings?
    {
        let raw = try ConfigLoader.parse(source.text, file: source.file)
        guard case .array(let sinks)? = raw["sinks"] else { return nil }
        for (index, sink) in sinks.enumerated() where sink["type"]?.stringValue == "http" {
            let path = JSONPath().appending("sinks").appending(index: index)
            let redactor = SecretRedactor()
            do {
                let substituted = try SecretSubstitution(redactor: redactor, baseDirectory: baseDirectory).apply(
                    to: sink, at: path)
                // The kind without its server: the certificates and key are not read (an
                // operator may not be allowed to read the key), only named.
                let decoder = ConfigLoader.decoder(httpOnly)
                let decoded = try decoder.decode(SinkConfig.self, from: substituted, at: path)
                return decoded.settings as? HTTPSinkSettings
            } catch {
                throw ConfigError(
                    file: source.file, location: error.path.description, message: redactor.redact(error.message))
            }
        }
        return nil
    }
}
