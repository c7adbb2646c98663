import Glibc
import PathwatchBase
import PathwatchJSON
import PathwatchSinkKit

/// What `plugins --try` is given, made into what the trial runs: the library's path and the
/// probe's config text. Both fail with a sentence naming what was wrong, never later with a
/// loader's message about something the person did not ask for.
package enum TrialInputs {
    package struct Problem: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// A probe config read from `@FILE` larger than this is a mistake, as for the agent's own file.
    static let configFileLimit = ConfigLoader.maxConfigBytes

    /// The library to load. dlopen looks a name without a slash up on the library path
    /// (LD_LIBRARY_PATH, the cache, /usr/lib), never in the current folder, and then says only
    /// "cannot open shared object file": a plug-in author trying the file just built means the
    /// one here. So such a name is taken as a file in the current folder, and a missing one is
    /// said to be missing there.
    package static func libraryPath(_ argument: String) throws(Problem) -> String {
        guard !argument.isEmpty else { throw Problem(description: "--try needs a library file") }
        guard !argument.contains("/") else { return argument }
        var info = stat()
        guard stat(argument, &info) == 0 else {
            throw Problem(
                description: "\(argument): no such file in the current folder (a name without a slash is a file here, "
                    + "not looked up on the library path; give the plug-in's path)")
        }
        return "./" + argument
    }

    /// The probe's config: `text` (JSON), or with a leading `@` the contents of the file it
    /// names, as curl's `-d @file` reads one; with `${env:NAME}` and `${file:PATH}` substituted
    /// as in the agent's configuration (SecretSubstitution: the same references, the same errors,
    /// a relative `${file:…}` from the @FILE's folder, else the current one), each value recorded
    /// with `redactor` so what the trial prints never shows it. Text with no reference is handed
    /// over as it is, JSON or not: the plug-in says what is wrong with it.
    package static func probeConfig(_ text: String, redactor: SecretRedactor = SecretRedactor()) throws(Problem)
        -> String
    {
        let raw: String
        let base: String
        if text.hasPrefix("@") {
            let file = String(text.dropFirst())
            guard !file.isEmpty else {
                throw Problem(description: "--probe-config @FILE needs a file name after the @")
            }
            do {
                raw = try BoundedFile.readText(file, limit: configFileLimit)
            } catch {
                throw Problem(description: "--probe-config \(text): cannot read the probe's config: \(error)")
            }
            base = directoryName(file)
        } else {
            raw = text
            base = "."
        }
        guard raw.contains("${") else { return raw }
        let origin = text.hasPrefix("@") ? "--probe-config \(text)" : "--probe-config"
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(raw)
        } catch {
            throw Problem(description: "\(origin): not JSON, so its ${…} references cannot be substituted: \(error)")
        }
        do {
            let substituted = try SecretSubstitution(redactor: redactor, baseDirectory: base).apply(
                to: parsed, at: JSONPath().appending("config"))
            return JSONSerializer.serialize(substituted)
        } catch {
            throw Problem(description: "\(origin): \(error)")
        }
    }
}
