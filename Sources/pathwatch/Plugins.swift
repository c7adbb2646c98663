import ArgumentParser
import PathwatchAgent

extension Pathwatch {
    struct Plugins: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the plug-ins found in the configured folders, and why any file was refused.")

        @OptionGroup var options: CommonOptions

        func run() throws {
            let loaded = try options.loadConfig()
            let catalog = PluginCatalog.discover(for: loaded, logger: options.makeLogger(redactor: loaded.redactor))
            let rows = catalog.plugins.map { p in
                [p.name, p.version, "abi \(p.abiVersion)", p.path, p.summary]
            }
            let header = ["NAME", "VERSION", "ABI", "FILE", "DESCRIPTION"]
            let widths = (0..<4).map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
            for row in [header] + rows {
                print((0..<4).map { row[$0].padding(widths[$0]) }.joined(separator: "  ") + "  " + row[4])
            }
            if !catalog.refused.isEmpty {
                print("\nREFUSED")
                for refusal in catalog.refused { print("\(refusal.path): \(refusal.reason)") }
            }
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
