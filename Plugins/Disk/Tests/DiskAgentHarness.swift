import Foundation
import PathwatchTestSupport

/// Runs the real agent against real mounts inside a private mount namespace, next to `df`.
///
/// Every scenario is one bash script run under `unshare -m --propagation private`: the mounts it
/// makes vanish with the namespace, even when a test fails half-way. The script calls `step NAME`
/// to record, at one moment, `pathwatch once`'s document and exit status and df's numbers for
/// the mount; nothing else writes to the mount between the two, so they must agree exactly.
struct DiskAgentHarness {
    let directory: URL
    let mountPoint: String
    /// A second empty folder, for a mount that never answers (`$STUCK`).
    let stuckPoint: String
    let configFile: URL

    /// `probes` builds the config's probe list for the mount points the harness made.
    init(interval: String = "10s", probes: (_ mountPoint: String, _ stuckPoint: String) -> [[String: Any]]) throws {
        directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-disk")
        // Readable and searchable by the unprivileged user an `unprivileged` run's agent is.
        chmod(directory.path, 0o755)
        let mount = directory.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: false)
        // As the kernel names it in mountinfo: no "//", no symbolic links.
        mountPoint = mount.resolvingSymlinksInPath().path
        stuckPoint = directory.resolvingSymlinksInPath().appendingPathComponent("stuck").path
        try FileManager.default.createDirectory(atPath: stuckPoint, withIntermediateDirectories: false)
        configFile = directory.appendingPathComponent("config.json")
        let config: [String: Any] = [
            "agent": [
                "name": "disk-test", "interval": interval, "plugin_dirs": [TestEnvironment.productsDirectory.path],
            ],
            "probes": probes(mountPoint, stuckPoint),
            "sinks": [["type": "stdout", "format": "json", "on": "every"]],
        ]
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted, .sortedKeys]).write(to: configFile)
    }

    func cleanUp() { TestEnvironment.removeTemporaryDirectory(directory) }

    /// Runs `script` (with `$MNT`, `$STUCK`, `$AGENT`, `$CFG`, `$OUT`, `step` and `mount_stuck`
    /// defined) in a private mount namespace, and returns its recorded steps by name. With
    /// `unprivileged`, each `step` runs the agent as an ordinary user, as operators run it (not
    /// for the FUSE mount: without allow_other, FUSE answers other users at once, never blocking).
    func run(_ script: String, unprivileged: Bool = false, timeout: Double = 120) throws -> [String: Step] {
        let prelude = #"""
            step() {
              local rc=0
              $RUNAS "$AGENT" once --config "$CFG" --format json > "$OUT/$1.json" 2> "$OUT/$1.err" || rc=$?
              echo "$rc" > "$OUT/$1.rc"
              df -B1 --output=size,used,avail,pcent,itotal,iavail,ipcent "$MNT" > "$OUT/$1.df"
              echo "$1" >> "$OUT/steps"
            }
            # A FUSE mount whose daemon never answers: every statfs on it blocks, as on a dead
            # NFS server. Closing fd 3 (or the script ending) aborts the connection and frees
            # the blocked callers.
            mount_stuck() {
              exec 3<>/dev/fuse
              mount -t fuse -o fd=3,rootmode=40000,user_id=0,group_id=0 pathwatch-stuck "$STUCK"
            }
            """#
        let result = try PathwatchTestSupport.run(
            ["unshare", "-m", "--propagation", "private", "bash", "-euo", "pipefail", "-c", prelude + "\n" + script],
            environment: [
                "MNT": mountPoint, "STUCK": stuckPoint, "AGENT": TestEnvironment.pathwatchBinary.path,
                "CFG": configFile.path,
                "OUT": directory.path, "RUNAS": unprivileged ? Unprivileged.command([]).joined(separator: " ") : "",
            ],
            timeout: timeout)
        guard result.status == 0, !result.timedOut else {
            throw TestFailure("namespace script failed (\(result.status)): \(result.stderr)")
        }
        let names = (try? output("steps"))?.split(separator: "\n").map(String.init) ?? []
        var steps: [String: Step] = [:]
        for name in names { steps[name] = try Step(name: name, directory: directory) }
        return steps
    }

    /// A file the script wrote into `$OUT`.
    func output(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// One recorded moment: the agent's document and exit status, and df's numbers.
    struct Step {
        var exitStatus: Int32
        var document: [String: Any]
        var stderr: String
        var df: DfRow

        init(name: String, directory: URL) throws {
            func read(_ suffix: String) throws -> String {
                try String(contentsOf: directory.appendingPathComponent("\(name).\(suffix)"), encoding: .utf8)
            }
            let rc = try read("rc").trimmingCharacters(in: .whitespacesAndNewlines)
            exitStatus = Int32(rc) ?? -1
            stderr = try read("err")
            document = try parseJSONObject(try read("json"))
            df = try DfRow(parsing: try read("df"))
        }

        /// The check `<probe>/<mount point>` from the document.
        func check(_ id: String) throws -> [String: Any] {
            let checks = document["checks"] as? [[String: Any]] ?? []
            guard let check = checks.first(where: { $0["id"] as? String == id }) else {
                throw TestFailure("no check \(id) in \(checks.map { $0["id"] ?? "?" })")
            }
            return check
        }
    }
}

/// `df -B1 --output=size,used,avail,pcent,itotal,iavail,ipcent` for one mount.
struct DfRow: Equatable, CustomStringConvertible {
    var size, used, avail, pcent, itotal, iavail, ipcent: UInt64

    init(parsing text: String) throws {
        let lines = text.split(separator: "\n")
        guard lines.count == 2 else { throw TestFailure("unexpected df output: \(text)") }
        // df prints "-" for a percentage over nothing; the probe reports 0 there.
        let numbers = lines[1].split(separator: " ").map {
            $0 == "-" ? "0" : $0.replacingOccurrences(of: "%", with: "")
        }
        guard numbers.count == 7 else { throw TestFailure("unexpected df row: \(lines[1])") }
        let values = try numbers.map { field -> UInt64 in
            guard let value = UInt64(field) else { throw TestFailure("not a number in df output: \(field)") }
            return value
        }
        (size, used, avail, pcent, itotal, iavail, ipcent) =
            (values[0], values[1], values[2], values[3], values[4], values[5], values[6])
    }

    /// The same seven numbers read from a check's metrics (nil when one is missing or fractional).
    init?(metrics: [String: Any]) {
        func value(_ name: String) -> UInt64? {
            guard let number = metrics[name] as? NSNumber else { return nil }
            return UInt64(exactly: number.doubleValue)
        }
        guard let size = value("size_bytes"), let used = value("used_bytes"), let avail = value("avail_bytes"),
            let pcent = value("used_pct"), let itotal = value("inodes_total"), let iavail = value("inodes_free"),
            let ipcent = value("inodes_used_pct")
        else { return nil }
        (self.size, self.used, self.avail, self.pcent, self.itotal, self.iavail, self.ipcent) =
            (size, used, avail, pcent, itotal, iavail, ipcent)
    }

    var description: String {
        "size \(size) used \(used) avail \(avail) \(pcent)% inodes \(itotal) free \(iavail) \(ipcent)%"
    }
}
