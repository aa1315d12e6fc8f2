import Testing

@testable import APNSGateway

@Suite("A connection's answers leave in the order its requests came")
struct AnswerOrderTests {
    @Test("a batch decided before an earlier one waits for it; then both leave, in order")
    func laterWaitsForEarlier() {
        var order = AnswerOrder<String>()
        let first = order.handOver()
        let second = order.handOver()
        let third = order.handOver()
        #expect(order.decided(second, "b").isEmpty)
        #expect(order.decided(third, "c").isEmpty)
        #expect(order.waiting == 2)
        #expect(order.decided(first, "a") == ["a", "b", "c"])
        #expect(order.waiting == 0)
    }

    @Test("decided in order, each batch leaves at once")
    func inOrder() {
        var order = AnswerOrder<Int>()
        for value in 0..<100 {
            #expect(order.decided(order.handOver(), value) == [value])
        }
        #expect(order.waiting == 0)
    }

    @Test("any order of decisions gives every batch exactly once, in the order handed over")
    func anyOrder() {
        var order = AnswerOrder<Int>()
        let sequences = (0..<200).map { _ in order.handOver() }
        var left: [Int] = []
        for sequence in sequences.shuffled() { left += order.decided(sequence, sequence) }
        #expect(left == sequences)
    }
}
