import CFaultReport

/// Marks the calling thread as inside a call into a plug-in while the call runs, so that a fatal
/// signal there is named for the plug-in, the call and the probe before the process ends
/// (CFaultReport): inline, the plug-in's crash is the agent's, and without the mark the log
/// ended in the runtime's backtrace of the agent with no word of which plug-in it was.
enum FaultCallMark {
    static func during<T>(_ call: pw_fault_call, plugin: String, probe: String?, _ body: () -> T) -> T {
        // Idempotent after the first call; every process that calls a plug-in in itself needs it.
        pw_fault_report_install_handlers()
        plugin.withCString { name in (probe ?? "").withCString { pw_fault_report_enter(name, $0, call) } }
        defer { pw_fault_report_leave() }
        return body()
    }
}
