import Foundation

/// A process and its descendants, read from `/proc/PID/task/*/children` (the agent starts its
/// plug-in children from worker threads, so every thread's children are read).
public func processTree(_ pid: Int32) -> [Int32] {
    var pids = [pid]
    var i = 0
    while i < pids.count {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pids[i])/task")) ?? []
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pids[i])/task/\(task)/children", encoding: .utf8)) ?? ""
            pids += text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        i += 1
    }
    return pids
}

/// PSS summed over `pid`'s process tree, in KiB, from each process's `/proc/PID/smaps_rollup`
/// (shared pages divided among the processes that map them): what the tree really costs.
public func treePSSKiB(_ pid: Int32) -> Int {
    var total = 0
    for p in processTree(pid) {
        guard let text = try? String(contentsOfFile: "/proc/\(p)/smaps_rollup", encoding: .utf8) else { continue }
        for line in text.split(separator: "\n") where line.hasPrefix("Pss:") {
            total += Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
    }
    return total
}
