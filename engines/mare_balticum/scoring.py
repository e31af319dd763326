"""Final scoring (rules file, 'Scoring'): multipliers, amber, contracts, the tie-break."""

from __future__ import annotations

from engines.api import Result, ScoreTable

from .data import CONTRACT_BY_ID, FISH, GOODS
from .state import OVER, State
from .words import GOODS_HEADINGS, T


def score_warehouse(
    warehouse: dict[str, int], market: dict[str, int | None], contract: str | None
) -> dict:
    """The best score of one warehouse: the engine picks how many contract sets to fill.

    Returns the detail: points per kind, contract sets and points, and the total.
    """
    best: dict | None = None
    needs = CONTRACT_BY_ID[contract]["needs"] if contract else {}
    most = min((warehouse.get(kind, 0) // n for kind, n in needs.items()), default=0)
    for sets in range(most + 1):
        left = {kind: warehouse.get(kind, 0) - needs.get(kind, 0) * sets for kind in GOODS}
        points = {kind: left[kind] * (market.get(kind) or 0) for kind in FISH}
        points["amber"] = left["amber"]
        contract_points = sets * CONTRACT_BY_ID[contract]["points"] if contract else 0
        total = sum(points.values()) + contract_points
        if best is None or total > best["total"]:
            best = {
                "points": points,
                "contract": contract,
                "contract_sets": sets,
                "contract_points": contract_points,
                "total": total,
            }
    assert best is not None
    return best


def result(state: State) -> Result | None:
    if state.phase != OVER:
        return None
    details = []
    for seat in range(state.seats):
        warehouse = dict(zip(GOODS, state.warehouses[seat], strict=True))
        market = dict(zip(FISH, state.markets[seat], strict=True))
        detail = score_warehouse(warehouse, market, state.contracts[seat])
        detail["seat"] = seat
        detail["market"] = market
        detail["warehouse"] = warehouse
        detail["tokens"] = sum(state.warehouses[seat])
        detail["lost_in_hold"] = sum(state.holds[seat])
        details.append(detail)
    scores = tuple(detail["total"] for detail in details)
    best = max((detail["total"], detail["tokens"]) for detail in details)
    winners = tuple(
        detail["seat"] for detail in details if (detail["total"], detail["tokens"]) == best
    )
    if len(winners) > 1:
        reason = T("most points; the tie on points and warehouse tokens stands")
    elif sum(1 for detail in details if detail["total"] == best[0]) > 1:
        reason = T("most points; the tie on points went to the most tokens in the warehouse")
    else:
        reason = T("most points after the final scoring")
    return Result(
        scores=scores,
        winners=winners,
        breakdown={"seats": details},
        reason=reason,
        table=score_table(details),
    )


def score_table(details: list[dict]) -> ScoreTable:
    """Points per kind (count times the market's multiplier), amber, the contract, the
    total; then the tie-break (tokens in the warehouse) and what was lost in the hold."""
    columns = (
        *(GOODS_HEADINGS[kind] for kind in FISH),
        GOODS_HEADINGS["amber"],
        T("Contract"),
        T("Points"),
        T("Warehouse tokens"),
        T("Lost in the hold"),
    )
    rows = tuple(
        (
            *(detail["points"][kind] for kind in FISH),
            detail["points"]["amber"],
            detail["contract_points"],
            detail["total"],
            detail["tokens"],
            detail["lost_in_hold"],
        )
        for detail in details
    )
    return ScoreTable(columns, rows, deciding=len(FISH) + 2)
