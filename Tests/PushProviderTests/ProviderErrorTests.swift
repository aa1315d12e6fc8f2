import HTTPTypes
import ProviderStorage
import Testing

@testable import PushProvider

@Suite("ProviderError: what the caller is told, and what only the log gets")
struct ProviderErrorTests {
    @Test("a failure of the provider's own keeps its cause out of the message, and in the log line")
    func causeStaysOut() {
        let storage = ProviderError.storage("SQLite error 13: database or disk is full at /srv/provider.sqlite")
        #expect(storage.code == .storage && storage.code.rawValue == "storage")
        #expect(!storage.message.contains("SQLite") && !storage.message.contains("/srv"))
        #expect(storage.message.contains("try again in 2 seconds"))
        #expect(storage.description.contains("database or disk is full at /srv/provider.sqlite"))
        let configuration = ProviderError.configuration("cannot read /etc/herald/master.key")
        #expect(!configuration.message.contains("/etc") && configuration.description.contains("/etc/herald/master.key"))
        #expect(APIError(error: configuration).status.code == 500 && APIError(error: storage).status.code == 503)
    }

    @Test("a refusal's message is the caller's, with the field it is about; codes are the API's names")
    func refusals() {
        let invalid = ProviderError.field("content.badge", "must be a whole number")
        #expect(invalid.code == .invalid && invalid.field == "content.badge" && invalid.cause == nil)
        #expect(invalid.description == "content.badge: must be a whole number")
        #expect(ProviderError.notFound("no app x").code.rawValue == "not_found")
        #expect(ProviderError.tooLarge(field: "payload", "over 4096 bytes").code.rawValue == "too_large")
        #expect(APIError(error: .unauthorized("send a key")).status.code == 401)
        #expect(APIError(error: .upstream("APNs did not answer")).status.code == 502)
    }
}
