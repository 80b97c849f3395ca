package io.rdmamon.alerts;

import io.rdmamon.testing.ContractRecords;
import io.rdmamon.testing.ContractRecords.Change;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Alert delivery's reader against generated alert records: it returns a message or throws
 * {@link AlertMessage.InvalidAlertException} with a reason (which dead-letters the record), nothing else; an accepted
 * alert keeps the contract; a near-valid one is accepted exactly when none of its changes breaks the contract.
 */
class AlertMessagePropertiesTest {

    @Property(tries = 300)
    void nearValidAlerts(@ForAll("alertChanges") List<Change> changes) {
        String reason = parse(ContractRecords.bytes(ContractRecords.apply(ContractRecords.alert(), changes)));
        List<String> broken = ContractRecords.broken(changes);
        if (broken.isEmpty()) {
            assertThat(reason).isNull();
        } else {
            assertThat(reason).as("accepted although %s break the contract", broken).isNotNull()
                    .containsAnyOf(broken.toArray(String[]::new));
        }
    }

    @Property(tries = 300)
    void arbitraryAlertsKeepTheContractWhenAccepted(@ForAll("anyAlert") Map<String, Object> record) {
        parse(ContractRecords.bytes(record));
    }

    /** Null when accepted (and then checked against the contract), else the reason. */
    private static String parse(byte[] json) {
        try {
            ContractRecords.keepsContract(AlertMessage.parse(json).alert());
            return null;
        } catch (AlertMessage.InvalidAlertException e) {
            assertThat(e.getMessage()).isNotBlank();
            return e.getMessage();
        }
    }

    @Provide
    Arbitrary<List<Change>> alertChanges() {
        return ContractRecords.alertChanges();
    }

    @Provide
    Arbitrary<Map<String, Object>> anyAlert() {
        return ContractRecords.anyLike(ContractRecords.alert());
    }
}
