import Foundation
import PathwatchTestSupport

/// What the distribution tests package and where: the release build and its man page (which
/// `make test` makes before running the suite), and the scripts of `make install`/`make deb`.
enum Distribution {
    static var root: URL { TestEnvironment.packageRoot }
    static var releaseProducts: URL { root.appendingPathComponent(".build/release") }
    static var manPage: URL { root.appendingPathComponent(".build/plugins/GenerateManual/outputs/PathwatchCLI/pathwatch.1") }
    static var scripts: URL { root.appendingPathComponent("Tests/DistributionTests/Scripts") }

    static var version: String {
        let source = (try? String(contentsOf: root.appendingPathComponent("Sources/PathwatchAgent/Status/StatusDocument.swift"), encoding: .utf8)) ?? ""
        guard let line = source.split(separator: "\n").first(where: { $0.contains("static let version") }),
              let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close
        else { return "0.0.0" }
        return String(line[line.index(after: open)..<close])
    }

    /// Why the packaging tests cannot run here, or nil.
    static let missingInputs: String? = {
        let fm = FileManager.default
        if !fm.fileExists(atPath: releaseProducts.appendingPathComponent("pathwatch").path) || !fm.fileExists(atPath: manPage.path) {
            return "needs the release build and its man page: run `make man` (make test does)"
        }
        for tool in ["patchelf", "dpkg-shlibdeps", "dpkg-deb", "readelf", "strip"]
        where (try? run(["sh", "-c", "command -v \(tool)"]).status) != 0 {
            return "needs \(tool): run `make dist-deps` (make test does)"
        }
        return nil
    }()

    /// The environment of install.sh and make-deb.sh, as the Makefile sets it.
    static func environment(_ extra: [String: String]) -> [String: String] {
        ["PRODUCTS": releaseProducts.path, "MANPAGE": manPage.path, "VERSION": version].merging(extra) { $1 }
    }

    /// `make install` without its build step: dist/install.sh into `destdir`.
    static func install(into destdir: URL, prefix: String) throws -> ProcessResult {
        try run([root.appendingPathComponent("dist/install.sh").path],
                environment: environment(["DESTDIR": destdir.path, "PREFIX": prefix]), timeout: 300)
    }

    /// `make deb` without its build step; returns the package.
    static func makeDeb(into folder: URL) throws -> URL {
        let result = try run([root.appendingPathComponent("dist/make-deb.sh").path],
                             environment: environment(["OUT": folder.path]), timeout: 300)
        guard result.status == 0 else { throw TestFailure("make-deb.sh failed:\n\(result.stderr)") }
        return URL(fileURLWithPath: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The toolchain folder the build's run path names: what "no toolchain" must hide.
    static func toolchainRuntime() throws -> String {
        let result = try run(["readelf", "-d", releaseProducts.appendingPathComponent("pathwatch").path])
        for entry in runPath(inReadelf: result.stdout) where FileManager.default.fileExists(atPath: "\(entry)/libswiftCore.so") {
            return entry
        }
        throw TestFailure("no folder with libswiftCore.so in the release build's run path")
    }

    /// The RUNPATH entries in `readelf -d` output.
    static func runPath(inReadelf text: String) -> [String] {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("(RUNPATH)") }),
              let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
        else { return [] }
        return line[line.index(after: open)..<close].split(separator: ":").map(String.init)
    }
}
