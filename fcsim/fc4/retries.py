"""How often a host's storage layer sends a failed command again: the rule
the SCSI and FC-NVMe initiators share.

A command whose try failed in a way that allows another (a timeout, a
transport error) is sent again while it has used fewer retries than it is
allowed: Linux's SCSI midlayer counts ``++scmd->retries <= scmd->allowed``
(``scsi_decide_disposition``, ``scmd_eh_abort_handler``; sd allows
SD_MAX_RETRIES, 5), nvme_core ``nvme_req(req)->retries < nvme_max_retries``
(``nvme_decide_disposition``; ``max_retries``, 5). The SCSI midlayer also
gives up a command requeued without using a retry (TASK SET FULL, BUSY) once
it has been around longer than (allowed + 1) x its timeout
(``scsi_cmd_runtime_exceeded``, checked at each completion that is not a
success).
"""

from __future__ import annotations


def retry_allowed(retried: int, allowed: int) -> bool:
    """Whether a command sent again *retried* times after failures may be
    sent once more when it is *allowed* retries."""
    return retried < allowed


def runtime_exceeded(first_sent: float, now: float, allowed: int, timeout: float) -> bool:
    """Whether a command first sent at *first_sent* s, with *allowed* retries
    of *timeout* s each, has been around too long at *now* s to be requeued:
    longer than (allowed + 1) x timeout (Linux ``scsi_cmd_runtime_exceeded``)."""
    return now - first_sent > (allowed + 1) * timeout
