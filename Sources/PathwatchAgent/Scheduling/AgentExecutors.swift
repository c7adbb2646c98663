import Glibc
@_spi(ExperimentalCustomExecutors) import _Concurrency

/// Makes `TaskThreadPool` Swift concurrency's default executor for this process (see there for
/// why). The main executor stays the platform's: nothing in the agent runs on the main actor.
package enum AgentExecutors {
    /// As many threads as the machine has processors, like the default pool, but at least two
    /// (one long job must not hold up every other task) and at most four (the work is light).
    static let pool = TaskThreadPool(threads: min(4, max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))))

    /// Must run before the process's first task or await: the runtime reads its executors once.
    package static func install() {
        _createExecutors(factory: Factory.self)
    }

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { AgentExecutors.pool }
    }
}
