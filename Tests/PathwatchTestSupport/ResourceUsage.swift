import Foundation

/// A finished command with what it cost: CPU time (user + system) and peak resident memory,
/// of the command and every descendant it waited for (a plug-in child included).
public struct MeasuredRun: Sendable {
    public var result: ProcessResult
    public var cpuSeconds: Double
    public var peakRSSMiB: Double
}

/// Runs `argv` to completion like `run`, under a small python3 parent that reads
/// `getrusage(RUSAGE_CHILDREN)` once the command has exited: Foundation's `Process` reaps its
/// child itself, so the kernel's per-child accounting is read by a parent of our own.
public func runMeasuringUsage(
    _ argv: [String], environment: [String: String]? = nil, timeout: Double = 60
) throws -> MeasuredRun {
    let folder = try TestEnvironment.makeTemporaryDirectory("pathwatch-usage")
    defer { TestEnvironment.removeTemporaryDirectory(folder) }
    let usageFile = folder.appendingPathComponent("usage")
    let script = """
        import resource, subprocess, sys
        status = subprocess.run(sys.argv[2:]).returncode
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        with open(sys.argv[1], "w") as out:
            out.write("%f %d\\n" % (usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
        sys.exit(status if status >= 0 else 128 - status)
        """
    let result = try run(["python3", "-c", script, usageFile.path] + argv, environment: environment, timeout: timeout)
    guard let text = try? String(contentsOf: usageFile, encoding: .utf8) else {
        throw TestFailure("no resource usage for \(argv): \(result.stderr)")
    }
    let fields = text.split(separator: " ")
    guard fields.count == 2, let cpu = Double(fields[0]),
        let kib = Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        throw TestFailure("unreadable resource usage \(text)")
    }
    return MeasuredRun(result: result, cpuSeconds: cpu, peakRSSMiB: kib / 1024)
}
