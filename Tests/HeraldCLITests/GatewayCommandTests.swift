import Testing

@Suite("herald gateway")
struct GatewayCommandTests {
    @Test(
        "bad options exit 2 with a message, before anything listens",
        arguments: [
            ["gateway", "--auth-key", "TEAM:KEY"],
            ["gateway", "--auth-key", "DEF123GHIJ:ABC123DEFG:/no/such/key.p8"],
            ["gateway", "--environment", "staging"],
            ["gateway", "--port", "many"],
        ]
    )
    func badUsage(arguments: [String]) async {
        let result = await runHerald(arguments)
        #expect(result.status == 2)
        #expect(result.errorOutput.contains("error") || result.errorOutput.contains("Error"))
        #expect(result.output.isEmpty)
    }
}
