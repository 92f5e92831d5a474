$CM list
