import PathwatchCommands
import Testing

/// The agent's executable hands every command line it does not read itself to `pathwatch-cli`,
/// looked for beside its own real path, then in the installed layout's `lib/pathwatch`.
@Suite struct CompanionTests {
    @Test func theCompanionIsLookedForBesideTheExecutableThenInLibPathwatch() {
        #expect(
            CommandLineCompanion.candidates(executable: "/usr/bin/pathwatch")
                == ["/usr/bin/pathwatch-cli", "/usr/bin/../lib/pathwatch/pathwatch-cli"])
        #expect(
            CommandLineCompanion.candidates(executable: "/src/pathwatch/.build/release/pathwatch")
                == [
                    "/src/pathwatch/.build/release/pathwatch-cli",
                    "/src/pathwatch/.build/release/../lib/pathwatch/pathwatch-cli",
                ])
    }

    @Test func theAgentIsLookedForBesideTheCompanionThenInBin() {
        #expect(
            AgentExecutable.candidates(companion: "/usr/lib/pathwatch/pathwatch-cli")
                == ["/usr/lib/pathwatch/pathwatch", "/usr/lib/pathwatch/../../bin/pathwatch"])
        #expect(
            AgentExecutable.candidates(companion: "/src/pathwatch/.build/release/pathwatch-cli")
                == ["/src/pathwatch/.build/release/pathwatch", "/src/pathwatch/.build/release/../../bin/pathwatch"])
    }
}
