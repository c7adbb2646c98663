import Glibc
import PathwatchBase
import PathwatchSinkKit

/// `conf.d/*.json` beside the main file (contract §1): each fragment may hold `probes` and `sinks`
/// arrays, appended to the main file's in name order, the way Telegraf's `--config-directory`
/// and collectd's `Include` let a package or a configuration tool drop in one file per concern
/// instead of editing the operator's main file.
package struct ConfigFragment: Sendable {
    package var file: String
    package var text: String

    package init(file: String, text: String) {
        self.file = file
        self.text = text
    }

    /// The fragments beside `mainFile`, read in byte order of their names. Names starting with a
    /// dot (editors' swap and backup files) and names not ending in `.json` are not read. A
    /// missing `conf.d` is no error; an unreadable one is.
    package static func read(besides mainFile: String) throws(ConfigError) -> [ConfigFragment] {
        let folder = resolvePath("conf.d", relativeTo: directoryName(mainFile))
        guard let names = listDirectory(folder) else {
            if errno == ENOENT { return [] }
            throw ConfigError(
                file: folder, location: "(folder)", message: "cannot read the conf.d folder: \(errnoText())")
        }
        var fragments: [ConfigFragment] = []
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let file = "\(folder)/\(name)"
            do {
                fragments.append(
                    ConfigFragment(file: file, text: try BoundedFile.readText(file, limit: ConfigLoader.maxConfigBytes))
                )
            } catch {
                if let line = error.line, let column = error.column {
                    throw ConfigError(
                        file: file, location: "line \(line), column \(column)",
                        message: "invalid UTF-8; the configuration must be UTF-8 text")
                }
                throw ConfigError(
                    file: file, location: "(file)", message: "cannot read the configuration fragment: \(error)")
            }
        }
        return fragments
    }
}

/// What a fragment may hold: only arrays that append cleanly. `agent` settings stay in the main
/// file, where one value can win.
struct FragmentContent: Decodable {
    var probes: [ProbeConfig]
    var sinks: [SinkConfig]
    var hasSinks: Bool

    enum CodingKeys: String, CodingKey { case probes, sinks }

    init(from decoder: any Decoder) throws {
        let c = try decoder.configObject(keyedBy: CodingKeys.self)
        probes = try c.decodeIfPresent([ProbeConfig].self, forKey: .probes) ?? []
        sinks = try c.decodeIfPresent([SinkConfig].self, forKey: .sinks) ?? []
        hasSinks = c.contains(.sinks)
    }
}

/// Where each probe and sink of a merged configuration was written: which file, and its index
/// there. Errors found after merging (a duplicate id, a plug-in refusing its config) are
/// reported against the file and index the operator has to edit.
package struct ConfigOrigins: Sendable {
    package struct Origin: Sendable, Equatable {
        package var file: String
        package var index: Int
    }

    var mainFile: String = ""
    /// The conf.d files read, in the order they were appended.
    package internal(set) var fragments: [String] = []
    var probes: [Origin] = []
    var sinks: [Origin] = []

    /// `error` with its leading `probes[i]` or `sinks[i]` turned into the file and index the
    /// item came from. Errors about anything else are returned unchanged.
    package func relocate(_ error: ConfigError) -> ConfigError {
        guard error.file == mainFile else { return error }
        for (key, origins) in [("probes", probes), ("sinks", sinks)] {
            guard error.location.hasPrefix("\(key)["),
                let close = error.location.firstIndex(of: "]"),
                let index = Int(
                    error.location[error.location.index(error.location.startIndex, offsetBy: key.count + 1)..<close]),
                origins.indices.contains(index)
            else { continue }
            let origin = origins[index]
            let rest = error.location[error.location.index(after: close)...]
            return ConfigError(file: origin.file, location: "\(key)[\(origin.index)]\(rest)", message: error.message)
        }
        return error
    }

    /// `probes[i]` as an operator finds it: with its file when that is not the main one.
    func describeProbe(_ index: Int) -> String {
        guard probes.indices.contains(index), probes[index].file != mainFile else { return "probes[\(index)]" }
        return "probes[\(probes[index].index)] in \(probes[index].file)"
    }
}
