$CM balance maps/carca-isles --precision 6 --seats 2,3 --max-games 400 --jobs 2
