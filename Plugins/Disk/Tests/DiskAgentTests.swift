import Foundation
import PathwatchTestSupport
import Testing

/// The acceptance tests: the real agent loads the real plug-in and reports on a real tmpfs of
/// known size in a private mount namespace; its numbers must equal df's, not approximate them.
@Suite(.serialized, .onItsOwnThread) struct DiskAgentTests {
    static let rootOnly = TestEnvironment.canUseNamespaces
    /// The never-answering mount is a FUSE mount: root and the kernel's FUSE device.
    static let canMountFUSE = rootOnly && FileManager.default.fileExists(atPath: "/dev/fuse")
    static let needsFUSEReason: Comment = "needs root, namespaces and /dev/fuse"

    @Test(.enabled(if: rootOnly, Comment(rawValue: TestEnvironment.needsRootReason)))
    func tmpfsFilledPastEachThresholdMatchesDfAtEveryStep() throws {
        let usage = "usage"
        let full = "full"
        // Two probes on one mount: percentages (warn 50, crit 75) and the storage-full check
        // alone (min_free 8 MiB, percentages out of the way at 100).
        let h = try DiskAgentHarness { mount, _ in
            [
                [
                    "id": usage, "plugin": "disk", "timeout": "10s",
                    "config": ["mounts": [mount], "warn_used_percent": 50, "crit_used_percent": 75],
                ],
                [
                    "id": full, "plugin": "disk", "timeout": "10s",
                    "config": [
                        "mounts": [mount], "warn_used_percent": 100, "crit_used_percent": 100, "min_free": "8MiB",
                    ],
                ],
            ]
        }
        defer { h.cleanUp() }
        let steps = try h.run(
            """
            mount -t tmpfs -o size=64M,nr_inodes=4096 pathwatch-test "$MNT"
            step empty
            fallocate -l 40MiB "$MNT/a"; step warning
            fallocate -l 10MiB "$MNT/b"; step critical
            fallocate -l 10MiB "$MNT/c"; step minfree
            mount -o remount,ro "$MNT"; step readonly
            """, unprivileged: true)
        let expected: [(step: String, exit: Int32, usage: String, full: String)] = [
            ("empty", 0, "ok", "ok"),
            ("warning", 1, "warning", "ok"),
            ("critical", 2, "critical", "ok"),
            ("minfree", 2, "critical", "critical"),
            ("readonly", 2, "critical", "critical"),
        ]
        for (name, exit, usageState, fullState) in expected {
            let step = try #require(steps[name], "step \(name) did not run")
            #expect(step.exitStatus == exit, "\(name): exit \(step.exitStatus), stderr: \(step.stderr)")
            let usageCheck = try step.check("\(usage)/\(h.mountPoint)")
            let fullCheck = try step.check("\(full)/\(h.mountPoint)")
            #expect(usageCheck["state"] as? String == usageState, "\(name): \(usageCheck["message"] ?? "")")
            #expect(fullCheck["state"] as? String == fullState, "\(name): \(fullCheck["message"] ?? "")")
            for check in [usageCheck, fullCheck] {
                let metrics = try #require(check["metrics"] as? [String: Any])
                #expect(DfRow(metrics: metrics) == step.df, "\(name): probe \(metrics) vs df \(step.df)")
                #expect((metrics["readonly"] as? NSNumber)?.intValue == (name == "readonly" ? 1 : 0))
                let labels = check["labels"] as? [String: String]
                #expect(labels == ["mount": h.mountPoint, "fstype": "tmpfs", "device": "pathwatch-test"])
            }
        }
        // The size is the one asked for, so df and the probe are not merely agreeing on nonsense.
        #expect(steps["empty"]?.df.size == 64 * 1024 * 1024)
        #expect(
            try steps["warning"]?.check("\(usage)/\(h.mountPoint)")["message"] as? String
                == "warning: 63% used (warn 50%)")
        #expect(
            try steps["critical"]?.check("\(usage)/\(h.mountPoint)")["message"] as? String
                == "critical: 79% used (crit 75%)")
        #expect(
            try steps["minfree"]?.check("\(full)/\(h.mountPoint)")["message"] as? String
                == "critical: 4 MiB free, below min_free 8 MiB")
        #expect(
            try steps["readonly"]?.check("\(full)/\(h.mountPoint)")["message"] as? String
                == "critical: read-only; 4 MiB free, below min_free 8 MiB")
    }

    @Test(.enabled(if: rootOnly, Comment(rawValue: TestEnvironment.needsRootReason)))
    func inodeThresholdsOnATmpfsWithFewInodesMatchDfDashI() throws {
        let h = try DiskAgentHarness { mount, _ in
            [
                [
                    "id": "inodes", "plugin": "disk", "timeout": "10s",
                    "config": ["mounts": [mount], "warn_inodes_used_percent": 50, "crit_inodes_used_percent": 90],
                ]
            ]
        }
        defer { h.cleanUp() }
        let steps = try h.run(
            """
            mount -t tmpfs -o size=8M,nr_inodes=64 pathwatch-test "$MNT"
            step empty
            touch "$MNT"/f{1..40}; step warning
            touch "$MNT"/g{1..20}; step critical
            """)
        for (name, exit, state) in [("empty", Int32(0), "ok"), ("warning", 1, "warning"), ("critical", 2, "critical")] {
            let step = try #require(steps[name], "step \(name) did not run")
            #expect(step.exitStatus == exit, "\(name): \(step.stderr)")
            let check = try step.check("inodes/\(h.mountPoint)")
            #expect(check["state"] as? String == state, "\(name): \(check["message"] ?? "")")
            let metrics = try #require(check["metrics"] as? [String: Any])
            #expect(DfRow(metrics: metrics) == step.df, "\(name): probe \(metrics) vs df \(step.df)")
        }
        #expect(steps["empty"]?.df.itotal == 64)
        let message = try steps["critical"]?.check("inodes/\(h.mountPoint)")["message"] as? String
        #expect(message == "critical: inodes \(steps["critical"]?.df.ipcent ?? 0)% used (crit 90%)")
    }

    @Test(.enabled(if: canMountFUSE, needsFUSEReason))
    func aMountThatNeverAnswersIsUnknownWhileTheOthersReport() throws {
        let h = try DiskAgentHarness { mount, stuck in
            [
                [
                    "id": "disk", "plugin": "disk", "timeout": "10s",
                    "config": ["mounts": [mount, stuck], "timeout": "300ms"],
                ]
            ]
        }
        defer { h.cleanUp() }
        let steps = try h.run(
            """
            mount -t tmpfs -o size=16M pathwatch-test "$MNT"
            mount_stuck
            step stuck
            """)
        let step = try #require(steps["stuck"])
        // unknown is the worst state here: `once` exits 3.
        #expect(step.exitStatus == 3, "\(step.stderr)")
        let stuck = try step.check("disk/\(h.stuckPoint)")
        #expect(stuck["state"] as? String == "unknown")
        #expect(stuck["message"] as? String == "statvfs timed out after 300ms")
        #expect((stuck["labels"] as? [String: String])?["fstype"] == "fuse")
        let healthy = try step.check("disk/\(h.mountPoint)")
        #expect(healthy["state"] as? String == "ok")
        let metrics = try #require(healthy["metrics"] as? [String: Any])
        #expect(DfRow(metrics: metrics) == step.df)
    }

    @Test(.enabled(if: canMountFUSE, needsFUSEReason))
    func aStuckMountHoldsOneThreadForeverNotOnePerSample() throws {
        let h = try DiskAgentHarness(interval: "250ms") { mount, stuck in
            [
                [
                    "id": "disk", "plugin": "disk", "timeout": "2s",
                    "config": ["mounts": [mount, stuck], "timeout": "100ms"],
                ]
            ]
        }
        defer { h.cleanUp() }
        // The agent runs for about 4 s (some 16 samples) while the script counts, four times a
        // second, the threads of the agent and its plug-in child (the probe runs isolated) that
        // sit inside the statfs system call on the FUSE mount.
        _ = try h.run(
            """
            mount -t tmpfs -o size=16M pathwatch-test "$MNT"
            mount_stuck
            "$AGENT" run --config "$CFG" > "$OUT/run.out" 2> "$OUT/run.err" &
            agent=$!
            for i in $(seq 1 16); do
              sleep 0.25
              n=0
              for task in /proc/$agent/task/* $(for c in $(cat /proc/$agent/task/*/children 2>/dev/null); do echo /proc/$c/task/*; done); do
                nr=$(cut -d' ' -f1 "$task/syscall" 2>/dev/null || true)
                wchan=$(cat "$task/wchan" 2>/dev/null || true)
                # Asleep in statfs waiting on FUSE: the call on the dead mount (a statfs on the
                # tmpfs passing through at that instant is not counted).
                if [ "$nr" = "\(Self.statfsSyscall)" ] && [[ "$wchan" == fuse* ]]; then n=$((n + 1)); fi
              done
              echo "$n" >> "$OUT/stuck-threads"
            done
            kill -TERM "$agent"
            wait "$agent" || true
            exec 3>&-
            """)
        let counts = try h.output("stuck-threads").split(separator: "\n").compactMap { Int($0) }
        #expect(counts.count == 16)
        // The first count may come before the first sample started its call.
        #expect(counts.dropFirst(2).allSatisfy { $0 == 1 }, "threads inside statfs over time: \(counts)")
        let documents = try h.output("run.out").split(separator: "\n").map { try parseJSONObject(String($0)) }
        #expect(documents.count >= 8, "only \(documents.count) samples")
        var stillBlocked = 0
        for document in documents {
            let checks = document["checks"] as? [[String: Any]] ?? []
            let healthy = checks.first { $0["id"] as? String == "disk/\(h.mountPoint)" }
            let stuck = checks.first { $0["id"] as? String == "disk/\(h.stuckPoint)" }
            #expect(healthy?["state"] as? String == "ok")
            #expect(stuck?["state"] as? String == "unknown")
            if (stuck?["message"] as? String)?.contains("still blocked after") == true { stillBlocked += 1 }
        }
        #expect(stillBlocked >= documents.count - 1)
    }

    @Test(.enabled(if: rootOnly, Comment(rawValue: TestEnvironment.needsRootReason)))
    func starWatchesExactlyTheFilesystemsDfLists() throws {
        let h = try DiskAgentHarness { _, _ in
            [["id": "all", "plugin": "disk", "timeout": "10s", "config": ["mounts": "*"]]]
        }
        defer { h.cleanUp() }
        let steps = try h.run(
            """
            mount -t tmpfs -o size=16M pathwatch-test "$MNT"
            mount --bind "$MNT" "$STUCK"
            step all
            df --output=target -x squashfs -x erofs -x cramfs -x iso9660 | tail -n +2 > "$OUT/df-targets"
            """)
        let step = try #require(steps["all"])
        let checks = step.document["checks"] as? [[String: Any]] ?? []
        let watched = Set(checks.compactMap { ($0["labels"] as? [String: String])?["mount"] })
        let listed = Set(try h.output("df-targets").split(separator: "\n").map(String.init))
        #expect(watched == listed)
        // Our tmpfs is there once: its bind mount on $STUCK is a duplicate, as df says too.
        #expect(watched.contains(h.mountPoint))
        #expect(!watched.contains(h.stuckPoint))
        let ours = try step.check("all/\(h.mountPoint)")
        #expect(DfRow(metrics: try #require(ours["metrics"] as? [String: Any])) == step.df)
    }

    /// The statfs system call's number, as /proc/PID/task/TID/syscall shows it.
    static var statfsSyscall: Int {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: name.machine) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        return machine == "aarch64" ? 43 : 137
    }
}
