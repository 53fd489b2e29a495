"""How an FC-NVMe host recovers a command whose frames were lost in Class 3,
with and without sequence level error recovery (SLER, FC-NVMe-2).

Class 3 has no acknowledgements: a sequence that loses a frame never reaches
the FC-4 at the other end (its N_Port drops it incomplete), and only the
host, waiting for something that does not come, can find out.

With SLER (both ends set it at PRLI), the host recovers inside the exchange,
as FCP-4's sequence level recovery does and FC-NVMe-2 took over (FCIA, "What's
New in FC-NVMe-2", 2020: perform all steps needed to recover from the error
within the exchange):

- Detection. Each exchange has a timer of REC_TOV, restarted whenever the
  host sends or receives one of its IUs; REC_TOV = E_D_TOV + 1 s (FCP-4;
  Linux libfc ``get_fsp_rec_tov``). A read whose response arrives before all
  its data (a data frame lost, the response not) is found at once, from the
  bytes received against the command's length.
- Exchange state. At the timer the host asks the controller with REC
  (:mod:`fcsim.fc2.rec`) what it holds of the exchange: LS_RJT if the
  NVMe_CMND never arrived, else the data bytes it has received or sent,
  whether it holds the sequence initiative and whether it has sent the
  response.
- Retransmission. :func:`retry_r_ctl` names the IU to send again: the
  NVMe_CMND (REC rejected: the host sends it again in the exchange), else an
  NVMe_SR asking for the transfer ready (write data missing: the controller
  asks again for what it lacks and the host sends it), the data (a read's
  data lost: the controller sends the data and the response again) or the
  response. The controller answers NVMe_SR_RSP, then sends the IU.
- A REC or NVMe_SR lost, or a retransmission lost again, shows as the timer
  running out again (for a REC's answer an assumption: libfc gives an ELS
  2 R_A_TOV); after :data:`MAX_RECOVERIES` recoveries in one exchange the
  host aborts it as without SLER.

The host drives every recovery, as FCP-4's REC and SRR are the initiator's:
the controller answers REC and NVMe_SR but starts none (a controller waiting
for write data that does not come waits for the host's REC). That the
controller detects nothing itself is an assumption: FC-NVMe-2's own text was
not available, only Linux's structures (``include/linux/nvme-fc.h``) and
the FCIA's description.

Without SLER, or when SLER gives up, the host's NVMe layer ends the
command: its block-layer timeout (Linux nvme_core ``io_timeout``, 30 s)
makes nvme-fc abort the exchange with ABTS (``nvme_fc_timeout``), the
aborted command completes with Command Aborted By Host and the NVMe layer
sends it again in a new exchange (once its association is made again,
below), at most ``max_retries`` (5) times
(``nvme_decide_disposition``), after which it reports the error. A read whose
data came short without SLER completes with a host path error and is sent
again the same way. An ABTS unanswered for R_A_TOV is sent again (FC-FS),
up to :data:`MAX_RECOVERIES` times, after which the exchange is given up.
A command that fails in the transport (aborted, whether at the host's
timeout or when SLER gave up, or a read whose data came short without SLER)
resets its whole association, as Linux nvme-fc does (``nvme_fc_fcpio_done``:
"Per FC-NVME spec, failure of an individual command requires the connection
to be terminated, which in turn requires the association to be terminated";
``nvme_fc_error_recovery``, ``nvme_fc_reset_ctrl_work``). With SLER a lost
frame is first recovered inside its exchange and resets nothing; only what
SLER gives up on does. The reset (``nvme_fc_delete_association``): ABTS for
every other command outstanding on the association; once all have ended
(BA_ACC, or given up), a Disconnect Association LS to the controller, sent
without waiting for its answer (``nvme_fc_xmt_disconnect_assoc``), and at
once the reconnection (``nvme_fc_connect_ctrl_work``): Create Association,
then a Create I/O Connection per I/O queue (PRLI, the remote port's login,
stays). Every command aborted or waiting is sent again once the
association is live, each aborted one using one of its retries. An LS
unanswered for :data:`LS_TIMEOUT` fails the attempt (a Disconnect
Association follows if the association was made); the next attempt comes
*reconnect_delay* later, and after the last one :func:`reconnect_limit`
allows the controller is lost (``nvme_fc_reconnect_or_delete``): every
command waiting for it fails, and so does each command sent to it after.
On a multipath host (``failover``) the commands waiting for a queue entry
at a reset fail over at once with a host path error
(``nvmf_fail_nonready_command``), as do those aborted. Not modelled: the
Fabrics Connect, property and Identify admin commands Linux sends over each
new connection (as at the first connection), and the remote port's own loss
(dev_loss_tmo), which the FC transport handles.
"""

from __future__ import annotations

import math

from fcsim.fc2 import header as h
from fcsim.fc2.login import R_A_TOV
from fcsim.fc2.rec import RecAnswer

IO_TIMEOUT = 30.0
"""The host's NVMe command timeout, s (Linux nvme_core ``io_timeout``, 30)."""
MAX_RETRIES = 5
"""Times the host's NVMe layer sends a failed command again (Linux nvme_core
``max_retries``, 5)."""
REC_TOV_MARGIN = 1.0
"""REC_TOV less E_D_TOV, s (FCP-4; Linux libfc ``get_fsp_rec_tov``: E_D_TOV
+ 1 s)."""
MAX_RECOVERIES = 3
"""Sequence level recoveries of one exchange before the host aborts it (Linux
libfc ``FC_MAX_RECOV_RETRY``, 3); also the ABTS sent for one exchange before
it is given up."""
HOST_PATH_ERROR = 0x370
"""NVMe status a host gives a command whose transfer came short: Internal
Path Error (path related status 70h; Linux ``NVME_SC_HOST_PATH_ERROR``)."""
RECONNECT_DELAY = 10.0
"""Time between two attempts to create an association again, s, as asked
(Linux ``NVMF_DEF_RECONNECT_DELAY``, ``drivers/nvme/host/fabrics.h``)."""
CTRL_LOSS_TMO = 600.0
"""How long a host tries to create an association again before it gives the
controller up, s (Linux ``NVMF_DEF_CTRL_LOSS_TMO``, ``fabrics.h``)."""
FC_RECONNECT_DELAY = 2.0
"""The reconnect delay nvme-fc uses instead of the default one, s (Linux
``NVME_FC_DEFAULT_RECONNECT_TMO``, ``drivers/nvme/host/fc.c``)."""
LS_TIMEOUT = 2 * R_A_TOV
"""How long the host waits for the answer of an FC-NVMe link service, s
(Linux ``NVME_FC_LS_TIMEOUT_SEC``, two R_A_TOV, ``include/linux/nvme-fc.h``;
its LLDD enforces it)."""
COMMAND = -1
"""What :func:`retry_r_ctl` answers when the command itself must go again."""


def rec_tov(e_d_tov: float) -> float:
    """REC_TOV for an N_Port whose E_D_TOV is *e_d_tov*, s."""
    return e_d_tov + REC_TOV_MARGIN


def reconnect_limit(reconnect_delay: float,
                    ctrl_loss_tmo: float | None) -> tuple[float, int | None]:
    """The delay between reconnection attempts, s, and how many attempts a
    host makes before it gives the controller up (None: it never does), for a
    *reconnect_delay* and a *ctrl_loss_tmo* (s; None: reconnect forever) as
    asked. Linux's fabrics layer makes ``max_reconnects`` = ctrl_loss_tmo /
    reconnect_delay rounded up (``nvmf_parse_options``); nvme-fc, when the
    delay is the default one and the loss timeout is enforced, shortens the
    delay to :data:`FC_RECONNECT_DELAY` and makes as many attempts as fit in
    the same loss time (``nvme_fc_init_ctrl``). Each attempt counts, the
    first one after the reset included (``nvme_fc_create_association``
    increments ``nr_reconnects``; ``nvmf_should_reconnect`` allows another
    while it is below ``max_reconnects``)."""
    if ctrl_loss_tmo is None:
        return reconnect_delay, None
    attempts = math.ceil(ctrl_loss_tmo / reconnect_delay)
    if reconnect_delay == RECONNECT_DELAY and reconnect_delay > FC_RECONNECT_DELAY:
        return FC_RECONNECT_DELAY, math.ceil(attempts * reconnect_delay / FC_RECONNECT_DELAY)
    return reconnect_delay, attempts


def retry_r_ctl(write: bool, length: int, received: int, answer: RecAnswer) -> int | None:
    """What the host asks to be sent again after the controller's *answer* to
    its REC about a command (a *write* or read of *length* bytes, of which the
    host has *received* read data): :data:`COMMAND` (the controller does not
    know the exchange), the R_CTL of the IU for an NVMe_SR, or None (the
    controller is still at work on it: nothing is lost)."""
    if not answer.known:
        return COMMAND
    if write:
        if answer.complete:
            return h.R_CTL_COMMAND_STATUS
        if answer.count < length and not answer.initiative:
            return h.R_CTL_DATA_DESCRIPTOR
        return None
    if not answer.complete:
        return None
    return h.R_CTL_SOLICITED_DATA if received < length else h.R_CTL_COMMAND_STATUS
