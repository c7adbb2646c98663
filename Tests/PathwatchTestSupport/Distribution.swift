import Foundation

/// What the distribution and system tests package and where: the release build and its man page
/// (which `make test` makes before running the suite), and the scripts of `make install`/`make deb`.
public enum Distribution {
    public static var root: URL { TestEnvironment.packageRoot }
    public static var releaseProducts: URL { root.appendingPathComponent(".build/release") }
    public static var manPage: URL {
        root.appendingPathComponent(".build/plugins/GenerateManual/outputs/PathwatchCLI/pathwatch.1")
    }

    /// The release being built: docs/changelog.md's newest `## X.Y.Z` heading, where the build
    /// and `make deb` read it too.
    public static var version: String { releases.first ?? "0.0.0" }

    /// Every release docs/changelog.md names, newest first.
    public static var releases: [String] {
        let changelog =
            (try? String(contentsOf: root.appendingPathComponent("docs/changelog.md"), encoding: .utf8)) ?? ""
        return changelog.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("## ") else { return nil }
            let version = line.dropFirst(3).prefix { $0 != " " }
            guard version.split(separator: ".").count == 3, version.allSatisfy({ $0 == "." || $0.isNumber }) else {
                return nil
            }
            return String(version)
        }
    }

    /// Why the packaging tests cannot run here, or nil.
    public static let missingInputs: String? = {
        let fm = FileManager.default
        if !fm.fileExists(atPath: releaseProducts.appendingPathComponent("pathwatch").path)
            || !fm.fileExists(atPath: manPage.path)
        {
            return "needs the release build and its man page: run `make man` (make test does)"
        }
        for tool in ["patchelf", "dpkg-shlibdeps", "dpkg-deb", "readelf", "strip"]
        where (try? run(["sh", "-c", "command -v \(tool)"]).status) != 0 {
            return "needs \(tool): run `make dist-deps` (make test does)"
        }
        return nil
    }()

    /// The environment of install.sh and make-deb.sh, as the Makefile sets it.
    public static func environment(_ extra: [String: String]) -> [String: String] {
        ["PRODUCTS": releaseProducts.path, "MANPAGE": manPage.path, "VERSION": version].merging(extra) { $1 }
    }

    /// `make install` without its build step: dist/install.sh into `destdir`.
    public static func install(into destdir: URL, prefix: String) throws -> ProcessResult {
        try run(
            [root.appendingPathComponent("dist/install.sh").path],
            environment: environment(["DESTDIR": destdir.path, "PREFIX": prefix]), timeout: 300)
    }

    /// `make deb` without its build step, as `version` (the agent's own unless given: another
    /// packs the same build as a later release, to upgrade to); returns the package.
    public static func makeDeb(into folder: URL, version: String = Distribution.version) throws -> URL {
        let result = try run(
            [root.appendingPathComponent("dist/make-deb.sh").path],
            environment: environment(["OUT": folder.path, "VERSION": version]), timeout: 300)
        guard result.status == 0 else { throw TestFailure("make-deb.sh failed:\n\(result.stderr)") }
        return URL(fileURLWithPath: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The package `makeDeb` makes, made once per test process (the package and system tests
    /// both install it; packing it takes most of a minute) into .build/pkgtest/deb-<pid>, which
    /// is removed when the process exits (or, after a killed run, by the next run's sweep).
    public static func sharedDeb() throws -> URL { try shared.get() }

    private static let shared: Result<URL, any Error> = Result {
        let folder = DebianRoot.folder.appendingPathComponent("deb-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        sharedFolder = strdup(folder.path)
        atexit {
            if let path = Distribution.sharedFolder {
                _ = try? FileManager.default.removeItem(atPath: String(cString: path))
            }
        }
        return try makeDeb(into: folder)
    }

    /// The shared package's folder, for the exit handler (which can capture nothing).
    nonisolated(unsafe) private static var sharedFolder: UnsafeMutablePointer<CChar>?

    /// The toolchain folder the build's run path names: what "no toolchain" must hide.
    public static func toolchainRuntime() throws -> String {
        let result = try run(["readelf", "-d", releaseProducts.appendingPathComponent("pathwatch").path])
        for entry in runPath(inReadelf: result.stdout)
        where FileManager.default.fileExists(atPath: "\(entry)/libswiftCore.so") {
            return entry
        }
        throw TestFailure("no folder with libswiftCore.so in the release build's run path")
    }

    /// The RUNPATH entries in `readelf -d` output.
    public static func runPath(inReadelf text: String) -> [String] {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("(RUNPATH)") }),
            let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]")
        else { return [] }
        return line[line.index(after: open)..<close].split(separator: ":").map(String.init)
    }
}

/// The Debian 12 roots the package and system tests install the package into: a pristine root
/// made once with debootstrap and cached in .build/pkgtest/bookworm (Tests/Fixtures/debian/
/// bookworm-root.sh, which also makes it again when its package list changes), and one copy of it
/// per run, named by the run's pid so that the next run can remove what a killed run left.
public enum DebianRoot {
    public static var folder: URL { Distribution.root.appendingPathComponent(".build/pkgtest") }
    public static var base: URL { folder.appendingPathComponent("bookworm") }
    public static var scripts: URL { Distribution.root.appendingPathComponent("Tests/Fixtures/debian") }

    /// Why a root cannot be made here, or nil: root, namespaces and debootstrap.
    public static var missingTools: String? {
        guard TestEnvironment.canUseNamespaces else { return TestEnvironment.needsRootReason }
        guard (try? run(["sh", "-c", "command -v debootstrap"]).status) == 0 else {
            return "needs debootstrap: run `make test-deps`"
        }
        return nil
    }

    /// The cached root, made when missing (minutes the first time; the script takes a lock, so
    /// two suites asking at once make it once).
    public static func makeBase() throws {
        let made = try run(["bash", scripts.appendingPathComponent("bookworm-root.sh").path, base.path], timeout: 900)
        guard made.status == 0 else { throw TestFailure("making the Debian root failed: \(made.stderr)") }
    }

    /// A fresh copy of the cached root for this run, `.build/pkgtest/<name>-<pid>`, with `deb`
    /// installed by apt (from a chroot, before anything boots it) without recommendations, as on
    /// a host configured so: what the package needs must be among its dependencies. Copies left
    /// by runs that no longer exist are removed first.
    public static func copy(named name: String, installing deb: URL) throws -> URL {
        sweepLeftovers()
        try makeBase()
        let root = folder.appendingPathComponent("\(name)-\(getpid())")
        let copied = try run(["cp", "-a", base.path, root.path], timeout: 300)
        guard copied.status == 0 else {
            remove(root)
            throw TestFailure("copying the Debian root: \(copied.stderr)")
        }
        do {
            try FileManager.default.copyItem(at: deb, to: root.appendingPathComponent("tmp/\(deb.lastPathComponent)"))
            let apt = try inRoot(
                root,
                "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/\(deb.lastPathComponent)",
                timeout: 600)
            guard apt.status == 0 else { throw TestFailure("apt install: \(apt.stdout)\n\(apt.stderr)") }
        } catch {
            remove(root)
            throw error
        }
        return root
    }

    /// Runs a shell command in `root` from a chroot with /proc, /sys and /dev in a mount namespace
    /// of its own (Tests/Fixtures/debian/in-root.sh): for a root nothing has booted.
    public static func inRoot(_ root: URL, _ command: String, timeout: Double = 120) throws -> ProcessResult {
        try run(["bash", scripts.appendingPathComponent("in-root.sh").path, root.path, command], timeout: timeout)
    }

    /// Removes a run's root, never while anything is mounted below it (the mounts live in
    /// namespaces that ended with their commands, but a removal must not trust that blindly).
    public static func remove(_ root: URL) {
        // Through cat: /proc files report size 0, and a reader trusting the size reads nothing.
        let mounts = (try? run(["cat", "/proc/self/mountinfo"]).stdout) ?? ""
        guard mounts.contains(" / / "), !mounts.contains(" \(root.path)/") else { return }
        _ = try? run(["rm", "-rf", "--one-file-system", root.path], timeout: 300)
    }

    /// Removes the copies of runs whose process is gone (a killed `swift test` skips its
    /// `defer`s), first killing whatever still runs in them: a container a killed run booted
    /// keeps running, its systemd-nspawn orphaned. Only processes that run in such a copy (their
    /// root mount is it, even once deleted) or name one on their command line are touched.
    public static func sweepLeftovers() {
        let deadline = Date().addingTimeInterval(30)
        var stray = leftoverProcesses()
        while !stray.isEmpty, Date() < deadline {
            for process in stray { kill(process, SIGKILL) }
            usleep(50_000)
            stray = leftoverProcesses()
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where isLeftover(folder.appendingPathComponent(name).path) {
            remove(folder.appendingPathComponent(name))
        }
    }

    /// Whether `path` is a run's folder (`.build/pkgtest/<name>-<pid>`) whose process is gone.
    static func isLeftover(_ path: String) -> Bool {
        guard path.hasPrefix(folder.path + "/") else { return false }
        let name = path.dropFirst(folder.path.count + 1)
        guard !name.contains("/"), let dash = name.lastIndex(of: "-"), let pid = pid_t(name[name.index(after: dash)...])
        else { return false }
        return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Processes left by runs that are gone: in a container booted from a run's folder (the
    /// root mount of their mount namespace is that folder), or naming one as an argument.
    static func leftoverProcesses() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { pid in
            let arguments = readWhole("/proc/\(pid)/cmdline").split(separator: 0).map {
                String(decoding: $0, as: UTF8.self)
            }
            if arguments.contains(where: isLeftover) { return true }
            // mountinfo: "id parent dev root mountpoint …"; the last mount on "/" is the root.
            let mounts = String(decoding: readWhole("/proc/\(pid)/mountinfo"), as: UTF8.self).split(separator: "\n")
            guard let rootMount = mounts.last(where: { $0.split(separator: " ").dropFirst(4).first == "/" }) else {
                return false
            }
            var source = String(rootMount.split(separator: " ")[3])
            if source.hasSuffix("//deleted") { source.removeLast("//deleted".count) }
            return isLeftover(source)
        }
    }

    /// A file read to its end (a /proc file reports size 0, so nothing may trust the size).
    static func readWhole(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
