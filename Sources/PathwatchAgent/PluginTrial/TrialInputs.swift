import Glibc

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

    /// The probe's config: `text` as it is (JSON), or with a leading `@` the contents of the file
    /// it names, as curl's `-d @file` reads one.
    package static func probeConfig(_ text: String) throws(Problem) -> String {
        guard text.hasPrefix("@") else { return text }
        let file = String(text.dropFirst())
        guard !file.isEmpty else { throw Problem(description: "--probe-config @FILE needs a file name after the @") }
        do {
            return try BoundedFile.readText(file, limit: configFileLimit)
        } catch {
            throw Problem(description: "--probe-config \(text): cannot read the probe's config: \(error)")
        }
    }
}
