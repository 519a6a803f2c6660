"""Server refusals shown on a German page: moves refused by the server (a stale
move, an illegal key move target), give-up of a won game... are they German?"""
import httpx
from kb import *
with started_server() as srv:
    c = httpx.Client(base_url=srv.url, trust_env=False, headers={"Accept-Language": "de"})
    g = c.post("/api/games", json=dict(variant="terrace", deal_number=7)).json()
    for path, body in [(f"/api/games/{g['id']}/moves", {"move": "t1t2"}), (f"/api/games/{g['id']}/moves", {"move": "zz"}),
                       (f"/api/games/{g['id']}/undo", {}), (f"/api/games/{g['id']}/give-up", {}), ("/api/games/nope", None),
                       (f"/api/games/{g['id']}/moves", {"move": "c1", "after": 5}), (f"/api/games/{g['id']}/hint", {"after": 3})]:
        r = c.post(path, json=body) if body is not None else c.get(path)
        print(r.status_code, path.split("/")[-1], r.json().get("error"))
