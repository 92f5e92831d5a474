sh tests/check/json_schema.sh $CM
