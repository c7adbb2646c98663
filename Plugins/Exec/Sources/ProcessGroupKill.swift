import CExecSpawn

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Signals to a command's process group, and their names.
enum ProcessGroupKill {
    /// Sends `signal` to the group `pgid`; true when some process of it was there to receive it.
    /// The group's id is the command's pid, which stays reserved while the command is unreaped
    /// (a zombie still belongs to its group) or any member of the group is alive, so it can name
    /// no other process's group.
    @discardableResult
    static func send(_ signal: Int32, to pgid: pid_t) -> Bool { kill(-pgid, signal) == 0 }

    /// SIGKILL to what is left of the group of a command already reaped; true when some process
    /// was. Nearly always nothing is, and the kernel says so without a signal: in a plug-in
    /// child, a `kill(-group)` is a call the agent's call guard rules on, a round trip to the
    /// agent for every command, while the look (`getpriority`) is not. A group found empty gets
    /// no member later: its id names no group until the number is given to a new process.
    static func endRest(of pgid: pid_t) -> Bool {
        pw_exec_group_has_members(pgid) != 0 && send(SIGKILL, to: pgid)
    }

    /// "SIGKILL"; "signal 64" for one with no name.
    static func name(_ signal: Int32) -> String {
        let abbreviation = String(cString: pw_exec_signal_name(signal))
        return abbreviation.isEmpty ? "signal \(signal)" : "SIG" + abbreviation
    }
}
