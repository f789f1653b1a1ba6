"""What the table's parameter-server entries rest on (api_mapping/SEMANTICS.md 52), checked on the installed Paddle.

The transpiler fleet, its strategies and `DistributeTranspilerConfig` are left unconverted, and the shim refuses
them, because this Paddle cannot train in parameter-server mode: `minimize` of a distributed optimizer fails on a
worker and on a server, in 2.x fleet and in the 1.x transpiler fleet Paddle 3.3.1 still ships. A wheel that gains
that runtime fails these tests: then the conversion can be checked against 1.8.5 and the entries revisited. What
does run, the role queries after `fleet.init`, must keep answering as 1.8.5 answered, also for the role makers
the upgrader converts.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from typing import Dict

import pytest

pytestmark = pytest.mark.paddle

pytest.importorskip("paddle")

SERVERS = "127.0.0.1:36100,127.0.0.1:36101"

# A two-layer net minimized by a distributed SGD; `fleet` and its strategy come from the prelude.
TRAIN = """
x = paddle.static.data(name="x", shape=[-1, 4], dtype="float32")
y = paddle.static.data(name="y", shape=[-1, 1], dtype="float32")
p = paddle.static.nn.fc(paddle.static.nn.fc(x, size=3, activation="tanh"), size=1)
loss = paddle.mean(paddle.nn.functional.square_error_cost(p, y))
try:
    fleet.distributed_optimizer(paddle.optimizer.SGD(learning_rate=0.1), strategy).minimize(loss)
except Exception as error:
    print("minimize failed:", type(error).__name__, error)
else:
    print("minimize built the programs")
"""

FLEET_2X = """
import paddle
import paddle.distributed.fleet as fleet
paddle.enable_static()
fleet.init(fleet.PaddleCloudRoleMaker())
strategy = fleet.DistributedStrategy()
strategy.a_sync = {a_sync}
"""

FLEET_1X = """
import paddle
import paddle.incubate.distributed.fleet.role_maker as role_maker
from paddle.incubate.distributed.fleet.parameter_server.distribute_transpiler import fleet
from paddle.distributed.transpiler.distribute_transpiler import DistributeTranspilerConfig
paddle.enable_static()
fleet.init(role_maker.PaddleCloudRoleMaker())
strategy = DistributeTranspilerConfig()
strategy.sync_mode = True
"""

QUERIES = """
import paddle
import paddle.distributed.fleet as fleet
paddle.enable_static()
fleet.init(fleet.PaddleCloudRoleMaker())
print(fleet.is_server(), fleet.is_worker(), fleet.is_first_worker(), fleet.worker_index(), fleet.worker_num(),
      fleet.server_num(), fleet.server_index(), fleet.server_endpoints())
print(fleet.util.get_file_shard(["a", "b", "c", "d", "e"]))
"""


def run_as(role: str, index: int, code: str) -> str:
    """Run `code` as PaddleCloudRoleMaker's `role` number `index` of two servers and two trainers, on the
    legacy IR (on PIR, fleet's minimize fails before it reaches the runtime)."""
    env: Dict[str, str] = dict(os.environ, TRAINING_ROLE=role, PADDLE_PSERVERS_IP_PORT_LIST=SERVERS,
                               PADDLE_TRAINERS_NUM="2", PADDLE_TRAINER_ID=str(index), POD_IP="127.0.0.1",
                               PADDLE_PORT=SERVERS.split(",")[index].split(":")[1], FLAGS_enable_pir_api="0")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("role, missing", [("TRAINER", "CommContext"), ("PSERVER", "DistFleetWrapper")])
@pytest.mark.parametrize("a_sync", [False, True], ids=["sync", "async"])
def test_fleet_2x_cannot_build_a_parameter_server_program(role, missing, a_sync):
    out = run_as(role, 0, FLEET_2X.format(a_sync=a_sync) + TRAIN)
    assert "minimize failed:" in out and missing in out, out


@pytest.mark.parametrize("role, missing", [("TRAINER", "CommContext"), ("PSERVER", "listen_and_serv")])
def test_the_rehomed_transpiler_fleet_cannot_either(role, missing):
    out = run_as(role, 0, FLEET_1X + TRAIN)
    assert "minimize failed:" in out and missing in out, out


# What 1.8.5's transpiler fleet answered for the same roles (split_files raised TypeError there on Python 3;
# its Python 2 meaning is the shard shown).
ANSWERS_1_8 = {
    ("TRAINER", 0): ("False True True 0 2 2 0", ["a", "b", "c"]),
    ("TRAINER", 1): ("False True False 1 2 2 1", ["d", "e"]),
    ("PSERVER", 0): ("True False False 0 2 2 0", ["a", "b", "c"]),
    ("PSERVER", 1): ("True False False 1 2 2 1", ["d", "e"]),
}


@pytest.mark.parametrize("role, index", sorted(ANSWERS_1_8))
def test_the_role_queries_answer_as_in_1_8(role, index):
    flags, shard = ANSWERS_1_8[role, index]
    lines = run_as(role, index, QUERIES).splitlines()
    assert lines[-2] == f"{flags} {SERVERS.split(',')}"
    assert lines[-1] == str(shard)


# Role makers the upgrader converts, with what 1.8.5's transpiler fleet answered after `fleet.init(role)`.
ROLE_MAKERS_1_8 = {
    "role_maker.UserDefinedRoleMaker(1, role_maker.Role.WORKER, 2, servers)":
        "False True False 1 2 2 1 ['127.0.0.1:6001', '127.0.0.1:6002']",
    "role_maker.UserDefinedRoleMaker(current_id=0, role=role_maker.Role.SERVER, worker_num=2, server_endpoints=servers)":
        "True False False 0 2 2 0 ['127.0.0.1:6001', '127.0.0.1:6002']",
    "role_maker.UserDefinedRoleMaker(worker_num=3, server_endpoints=servers)":
        "False True True 0 3 2 0 ['127.0.0.1:6001', '127.0.0.1:6002']",
    "role_maker.UserDefinedRoleMaker(current_id=1, worker_num=2, server_endpoints=servers[:1])":
        "False True False 1 2 1 1 ['127.0.0.1:6001']",
    "role_maker.UserDefinedRoleMaker(role=role_maker.Role.SERVER, worker_num=2, server_endpoints=servers)":
        "True False False 0 2 2 0 ['127.0.0.1:6001', '127.0.0.1:6002']",
    # from TRAINER 1 of test_the_role_queries_answer_as_in_1_8's environment
    "role_maker.PaddleCloudRoleMaker()": "False True False 1 2 2 1 ['127.0.0.1:36100', '127.0.0.1:36101']",
}


@pytest.mark.parametrize("call", sorted(ROLE_MAKERS_1_8))
def test_an_upgraded_role_maker_gives_2x_fleet_the_1_8_roles(call):
    import refactors

    source = ("import paddle.fluid.incubate.fleet.base.role_maker as role_maker\n\n"
              f"servers = ['127.0.0.1:6001', '127.0.0.1:6002']\nrole = {call}\n")
    upgraded = refactors.upgrade_code(source).code
    assert "paddle.fluid" not in upgraded, upgraded
    queries = ("import paddle.distributed.fleet as fleet\npaddle.enable_static()\nfleet.init(role)\n"
               "print(fleet.is_server(), fleet.is_worker(), fleet.is_first_worker(), fleet.worker_index(),"
               " fleet.worker_num(), fleet.server_num(), fleet.server_index(), fleet.server_endpoints())\n")
    assert run_as("TRAINER", 1, upgraded + queries).splitlines()[-1] == ROLE_MAKERS_1_8[call]
